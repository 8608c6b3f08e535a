#pragma once

// What the multi-process benchmarks (cross_process.cpp, join_cross_process.cpp) share: the bare
// baselines' processes (fork, a producer's PUSH loop, a consumer's PULL loop, msgpack packing of
// GeneratorSpout's rows) and the topology side (a timing sink, running a topology on worker
// processes of this very program). Header-only, for bench/ only: it may name ZeroMQ and msgpack.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <msgpack.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <zmq.hpp>

#include "runtime/process/process_cluster.h"
#include "runtime/process/worker.h"
#include "topology/bolt.h"
#include "topology/topology_spec.h"

namespace tempest::bench {

using Clock = std::chrono::steady_clock;

// CLOCK_MONOTONIC (steady_clock on Linux): the same clock in every process of the machine.
inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// GeneratorSpout's payload with its default payload_bytes.
inline const std::string kPayload(16, 'x');

// An ipc:// endpoint private to this process.
inline std::string IpcEndpoint(std::string_view bench, std::string_view what) {
  return fmt::format("ipc:///tmp/tempest-{}-{}-{}", bench, ::getpid(), what);
}

// ---------------------------------------------------------------------------------------------
// Bare baselines.

// msgpack's output target: appends to a string.
struct StringSink {
  std::string* out;
  void write(const char* d, std::size_t n) { out->append(d, n); }
};

// Packs GeneratorSpout's rows first .. first + n - 1 as one array of [id, key, ts, payload]
// arrays (key = id % keys, ts = id, the 16-character payload).
template <class Stream>
void PackGeneratorRows(msgpack::packer<Stream>& pk, uint64_t first, uint64_t n,
                       uint64_t keys = 1000) {
  pk.pack_array(static_cast<uint32_t>(n));
  for (uint64_t i = 0; i < n; ++i) {
    const auto id = static_cast<int64_t>(first + i);
    pk.pack_array(4);
    pk.pack_int64(id);
    pk.pack_int64(id % static_cast<int64_t>(keys));
    pk.pack_int64(id);
    pk.pack_str(static_cast<uint32_t>(kPayload.size()));
    pk.pack_str_body(kPayload.data(), static_cast<uint32_t>(kPayload.size()));
  }
}

// Runs `body` in a child process, which then exits: 0, or 1 if `body` threw. Fork only while this
// process has no other threads.
inline pid_t ForkChild(const std::function<void()>& body) {
  const pid_t child = ::fork();
  if (child == 0) {
    int code = 0;
    try {
      body();
    } catch (const std::exception& e) {
      fmt::print(stderr, "child process: {}\n", e.what());
      code = 1;
    }
    ::_exit(code);
  }
  if (child < 0) throw std::runtime_error("fork failed");
  return child;
}

// Waits for a child process; whether it exited with code 0.
inline bool ReapedOk(pid_t child) {
  int status = 0;
  return ::waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A producer process's side of a bare PUSH/PULL run: connects to `data_endpoint`, says hello
// there and waits for the consumer's go on `ack_endpoint` (which it binds), so that every producer
// starts at once, then sends what `build(first, n, message)` makes for [0, tuples) in slices of
// `batch`, then an empty message (its end), and returns once the consumer has said it got
// everything (libzmq can lose a dying process's last messages).
inline void PushBatches(const std::string& data_endpoint, const std::string& ack_endpoint,
                        uint64_t tuples, uint64_t batch,
                        const std::function<void(uint64_t, uint64_t, std::string&)>& build) {
  zmq::context_t ctx(1);
  zmq::socket_t push(ctx, zmq::socket_type::push);
  push.set(zmq::sockopt::linger, -1);
  push.connect(data_endpoint);
  zmq::socket_t ack(ctx, zmq::socket_type::pull);
  ack.bind(ack_endpoint);
  push.send(zmq::str_buffer("hello"), zmq::send_flags::none);
  zmq::message_t go;
  (void)ack.recv(go, zmq::recv_flags::none);
  std::string buf;
  for (uint64_t first = 0; first < tuples; first += batch) {
    build(first, std::min(batch, tuples - first), buf);
    push.send(zmq::buffer(buf), zmq::send_flags::none);
  }
  push.send(zmq::message_t(), zmq::send_flags::none);  // empty: done
  zmq::message_t confirmed;
  (void)ack.recv(confirmed, zmq::recv_flags::none);
}

struct PullTimes {
  Clock::time_point first;  // the first message after the hellos arrived
  Clock::time_point last;   // the last producer's end arrived
};

// The consumer's side: binds `data_endpoint`, waits for the hello of every producer (one per entry
// of `ack_endpoints`) and tells them all to go, hands every message to `on_message` until each
// producer has sent its empty end, then tells every producer it may exit.
inline PullTimes PullUntilDone(const std::string& data_endpoint,
                               const std::vector<std::string>& ack_endpoints,
                               const std::function<void(const zmq::message_t&)>& on_message) {
  zmq::context_t ctx(1);
  zmq::socket_t pull(ctx, zmq::socket_type::pull);
  pull.bind(data_endpoint);
  for (std::size_t hellos = 0; hellos < ack_endpoints.size(); ++hellos) {
    zmq::message_t hello;
    (void)pull.recv(hello, zmq::recv_flags::none);
  }
  // Connected only now that every producer has bound its endpoint: a connect that comes too early
  // is retried only after ZMQ_RECONNECT_IVL (100 ms), which would start the producers unevenly.
  std::vector<zmq::socket_t> acks;
  for (const std::string& endpoint : ack_endpoints) {
    acks.emplace_back(ctx, zmq::socket_type::push);
    acks.back().connect(endpoint);
  }
  for (zmq::socket_t& ack : acks) ack.send(zmq::str_buffer("go"), zmq::send_flags::none);
  PullTimes t;
  bool started = false;
  for (std::size_t ended = 0; ended < acks.size();) {
    zmq::message_t msg;
    (void)pull.recv(msg, zmq::recv_flags::none);
    if (!started) {
      t.first = Clock::now();
      started = true;
    }
    if (msg.size() == 0) {
      ++ended;
    } else {
      on_message(msg);
    }
  }
  t.last = Clock::now();
  for (zmq::socket_t& ack : acks) ack.send(zmq::str_buffer("ok"), zmq::send_flags::none);
  return t;
}

// ---------------------------------------------------------------------------------------------
// Topologies on worker processes of this program.

// Counts what arrives and times it; at cleanup writes "count id_sum first_ns last_ns" (id_sum: of
// field 0, an integer) to `out`, then with kLatency each arrival - field 1 (a NowNs() stamp) on a
// line of its own. kEndOfStream reads the clock only once, at end of stream (first_ns 0), so a
// sink that takes many rows does not spend a clock read on each.
class TimedSink final : public topology::Bolt {
 public:
  enum class Timing { kEachTuple, kLatency, kEndOfStream };
  TimedSink(std::string out, Timing timing) : out_(std::move(out)), timing_(timing) {}
  void Prepare(const topology::TopologyContext&, topology::OutputCollector&) override {}
  void Execute(const topology::Tuple& t) override {
    ++count_;
    id_sum_ += static_cast<uint64_t>(t.GetInt(0));
    if (timing_ == Timing::kEndOfStream) return;
    const int64_t now = NowNs();
    if (count_ == 1) first_ = now;
    last_ = now;
    if (timing_ == Timing::kLatency) latencies_.push_back(now - t.GetInt(1));
  }
  void OnEndOfStream() override {
    if (timing_ == Timing::kEndOfStream) last_ = NowNs();
  }
  void Cleanup() override {
    std::ofstream f(out_);
    f << count_ << ' ' << id_sum_ << ' ' << first_ << ' ' << last_ << '\n';
    for (int64_t l : latencies_) f << l << '\n';
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  std::string out_;
  Timing timing_;
  uint64_t count_ = 0, id_sum_ = 0;
  int64_t first_ = 0, last_ = 0;
  std::vector<int64_t> latencies_;
};

// The integers in a file (what a TimedSink wrote).
inline std::vector<int64_t> ReadNumbers(const std::string& path) {
  std::ifstream f(path);
  std::vector<int64_t> values;
  for (int64_t v; f >> v;) values.push_back(v);
  return values;
}

struct WorkerRun {
  runtime::RunSummary summary;
  int64_t started_ns = 0;  // NowNs() once every worker had been told to start its spouts
};

// Runs `spec` on `workers` processes of this program, each started as `<this program> <args>
// --tempest-worker` (its worker flags in its environment, runtime/process/worker.h); main() hands
// that to RunAsWorker, which must build the same topology from `args`.
inline WorkerRun RunOnWorkers(std::shared_ptr<const topology::TopologySpec> spec, int workers,
                              const std::vector<std::string>& args) {
  runtime::ProcessRunOptions o;
  o.workers = workers;
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  o.worker_command = {std::string(self, n > 0 ? static_cast<std::size_t>(n) : 0)};
  o.worker_command.insert(o.worker_command.end(), args.begin(), args.end());
  o.worker_command.push_back("--tempest-worker");
  runtime::ProcessCluster cluster(std::move(spec), o);
  WorkerRun run;
  cluster.Start();
  run.started_ns = NowNs();
  run.summary = cluster.Wait();
  return run;
}

// The worker flags of a process RunOnWorkers started. Throws std::invalid_argument without them.
inline runtime::WorkerOptions WorkerFlags() {
  std::optional<runtime::WorkerOptions> flags = runtime::WorkerOptionsFromEnvironment();
  if (!flags) throw std::invalid_argument("--tempest-worker without the supervisor's flags");
  return *flags;
}

// If argv holds --tempest-worker (this process is a worker RunOnWorkers started): runs the worker
// of the topology `build(flags)` makes, `flags` being the "--name value" pairs before that flag,
// and returns its exit code. Otherwise nullopt.
inline std::optional<int> RunAsWorker(
    int argc, char** argv,
    const std::function<std::shared_ptr<const topology::TopologySpec>(
        const std::map<std::string, std::string>&)>& build) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) != "--tempest-worker") continue;
    std::map<std::string, std::string> flags;
    for (int k = 1; k + 1 < i; k += 2) flags[argv[k]] = argv[k + 1];
    return runtime::RunWorker(build(flags), WorkerFlags());
  }
  return std::nullopt;
}

}  // namespace tempest::bench

// Two bare processes over ZeroMQ PUSH/PULL (ipc://), the baseline of issue 4's cross-process
// goal, measured three ways in one run on the same 40-byte tuples [id, key, ts, payload16] in
// batches of --batch per message:
//   raw      the tuples memcpy'd as 40-byte structs (no serialisation)
//   msgpack  bare msgpack-c: pack an array of [id, key, ts, str] arrays; unpack and read every
//            field into C++ values (the "full decode" baseline)
//   frame    Tempest's wire format: EncodeFrame of Tuples, DecodeFrame into Tuples
// The receiver times first to last message; the sender waits for the receiver's confirmation
// before it exits (libzmq 4.3.4 can lose a dying process's last messages even with linger).
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <msgpack.hpp>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "spouts/generator_spout.h"
#include "topology/topology_builder.h"
#include "transport/frame.h"

namespace {

using namespace tempest;
using Clock = std::chrono::steady_clock;

struct Raw {
  int64_t id, key, ts;
  char payload[16];
};
static_assert(sizeof(Raw) == 40);

struct Setup {
  uint64_t tuples = 0;
  uint64_t batch = 100;
  std::string data_endpoint, ack_endpoint;
  std::shared_ptr<const topology::TopologySpec> spec;
  std::unique_ptr<transport::StreamTable> table;
  const topology::StreamSchema* schema = nullptr;
};

struct StringSink {
  std::string* out;
  void write(const char* d, std::size_t n) { out->append(d, n); }
};

const std::string kPayload(16, 'x');

[[gnu::noinline]] void benchmark_sink(int64_t, int64_t, const std::string&);

// Builds message number `m` (tuples m*batch ...) into `out`.
void BuildMessage(const std::string& mode, const Setup& s, uint64_t first, uint64_t n,
                  std::string& out) {
  out.clear();
  if (mode == "raw") {
    out.resize(n * sizeof(Raw));
    for (uint64_t i = 0; i < n; ++i) {
      Raw r{static_cast<int64_t>(first + i),
            static_cast<int64_t>((first + i) % 1000),
            static_cast<int64_t>(first + i),
            {}};
      std::memcpy(r.payload, kPayload.data(), 16);
      std::memcpy(out.data() + i * sizeof(Raw), &r, sizeof(Raw));
    }
  } else if (mode == "msgpack") {
    StringSink sink{&out};
    msgpack::packer<StringSink> pk(sink);
    pk.pack_array(static_cast<uint32_t>(n));
    for (uint64_t i = 0; i < n; ++i) {
      const auto id = static_cast<int64_t>(first + i);
      pk.pack_array(4);
      pk.pack_int64(id);
      pk.pack_int64(id % 1000);
      pk.pack_int64(id);
      pk.pack_str(16);
      pk.pack_str_body(kPayload.data(), 16);
    }
  } else {
    std::vector<topology::Tuple> tuples;
    tuples.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      const auto id = static_cast<int64_t>(first + i);
      topology::Values v;
      v.emplace_back(id);
      v.emplace_back(id % 1000);
      v.emplace_back(id);
      v.emplace_back(kPayload);
      tuples.emplace_back(s.schema, 1, std::move(v));
    }
    transport::EncodeFrame(transport::FrameKind::kTuples, 1, 2, tuples, *s.table, out);
  }
}

// Decodes one message; returns the tuples in it and adds their ids to `id_sum`.
uint64_t ReadMessage(const std::string& mode, const Setup& s, const zmq::message_t& msg,
                     uint64_t& id_sum, transport::Frame& frame) {
  const char* data = static_cast<const char*>(msg.data());
  if (mode == "raw") {
    const uint64_t n = msg.size() / sizeof(Raw);
    for (uint64_t i = 0; i < n; ++i) {
      Raw r;
      std::memcpy(&r, data + i * sizeof(Raw), sizeof(Raw));
      id_sum += static_cast<uint64_t>(r.id);
    }
    return n;
  }
  if (mode == "msgpack") {
    msgpack::object_handle h = msgpack::unpack(data, msg.size());
    const msgpack::object_array& rows = h.get().via.array;
    for (uint32_t i = 0; i < rows.size; ++i) {
      const msgpack::object* f = rows.ptr[i].via.array.ptr;
      const int64_t id = f[0].as<int64_t>();
      const int64_t key = f[1].as<int64_t>();
      const int64_t ts = f[2].as<int64_t>();
      std::string payload(f[3].via.str.ptr, f[3].via.str.size);
      id_sum += static_cast<uint64_t>(id);
      benchmark_sink(key, ts, payload);
    }
    return rows.size;
  }
  if (transport::DecodeFrame(std::string_view(data, msg.size()), *s.table, frame) !=
      transport::DecodeStatus::kOk) {
    throw std::runtime_error("a frame failed to decode");
  }
  for (const topology::Tuple& t : frame.tuples) id_sum += static_cast<uint64_t>(t.GetInt(0));
  return frame.tuples.size();
}

[[gnu::noinline]] void benchmark_sink(int64_t, int64_t, const std::string&) {}

void Sender(const std::string& mode, const Setup& s) {
  zmq::context_t ctx(1);
  zmq::socket_t push(ctx, zmq::socket_type::push);
  push.set(zmq::sockopt::linger, -1);
  push.connect(s.data_endpoint);
  zmq::socket_t ack(ctx, zmq::socket_type::pull);
  ack.bind(s.ack_endpoint);
  std::string buf;
  for (uint64_t first = 0; first < s.tuples; first += s.batch) {
    const uint64_t n = std::min(s.batch, s.tuples - first);
    BuildMessage(mode, s, first, n, buf);
    push.send(zmq::buffer(buf), zmq::send_flags::none);
  }
  push.send(zmq::message_t(), zmq::send_flags::none);  // empty: done
  zmq::message_t confirmed;
  (void)ack.recv(confirmed, zmq::recv_flags::none);
}

struct Result {
  double seconds = 0;
  uint64_t tuples = 0;
  bool ok = false;
};

Result RunOnce(const std::string& mode, Setup& s) {
  s.data_endpoint = fmt::format("ipc:///tmp/tempest-zmq-bench-{}-data", ::getpid());
  s.ack_endpoint = fmt::format("ipc:///tmp/tempest-zmq-bench-{}-ack", ::getpid());
  const pid_t child = ::fork();
  if (child == 0) {
    Sender(mode, s);
    ::_exit(0);
  }
  Result r;
  {
    zmq::context_t ctx(1);
    zmq::socket_t pull(ctx, zmq::socket_type::pull);
    pull.bind(s.data_endpoint);
    zmq::socket_t ack(ctx, zmq::socket_type::push);
    ack.connect(s.ack_endpoint);
    uint64_t id_sum = 0;
    transport::Frame frame;
    Clock::time_point start;
    bool started = false;
    for (;;) {
      zmq::message_t msg;
      (void)pull.recv(msg, zmq::recv_flags::none);
      if (!started) {
        start = Clock::now();
        started = true;
      }
      if (msg.size() == 0) break;
      r.tuples += ReadMessage(mode, s, msg, id_sum, frame);
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    ack.send(zmq::str_buffer("ok"), zmq::send_flags::none);
    const uint64_t n = s.tuples;
    r.ok = r.tuples == n && id_sum == n * (n - 1) / 2;
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  r.ok = r.ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Two processes over ZeroMQ PUSH/PULL: raw bytes, bare msgpack, Tempest frames."};
  Setup s;
  s.tuples = 10'000'000;
  int repeats = 3;
  app.add_option("--tuples", s.tuples, "Tuples per run")->capture_default_str();
  app.add_option("--batch", s.batch, "Tuples per message")->capture_default_str();
  app.add_option("--repeats", repeats, "Runs per mode (best and median reported)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  topology::TopologyBuilder b;
  b.SetSpout("gen", [] { return std::make_unique<spouts::GeneratorSpout>(); });
  s.spec = b.Build();
  s.table = std::make_unique<transport::StreamTable>(s.spec);
  s.schema = s.spec->Find("gen")->FindStream("default");

  const std::vector<std::string> modes = {"raw", "msgpack", "frame"};
  std::map<std::string, std::vector<double>> rates;
  bool all_ok = true;
  for (int r = 0; r < repeats; ++r) {
    for (const std::string& mode : modes) {
      const Result res = RunOnce(mode, s);
      all_ok = all_ok && res.ok;
      const double rate = static_cast<double>(res.tuples) / res.seconds;
      rates[mode].push_back(rate);
      fmt::print("  run {} {:<8} {:>10} tuples {:7.3f} s {:8.2f}M tuples/s{}\n", r + 1, mode,
                 res.tuples, res.seconds, rate / 1e6, res.ok ? "" : "  LOST OR CORRUPT");
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return (v[(v.size() - 1) / 2] + v[v.size() / 2]) / 2;
  };
  const double base = median(rates["msgpack"]);
  fmt::print("\n{:<8} {:>10} {:>12} {:>16}\n", "mode", "best M/s", "median M/s", "median/msgpack");
  for (const std::string& mode : modes) {
    fmt::print("{:<8} {:>10.2f} {:>12.2f} {:>16.3f}\n", mode,
               *std::max_element(rates[mode].begin(), rates[mode].end()) / 1e6,
               median(rates[mode]) / 1e6, median(rates[mode]) / base);
  }
  return all_ok ? 0 : 1;
}

// What acking (Storm's XOR acker, issue 5) costs, measured end to end against the same topology
// with acking off, in the same run, in one process (LocalCluster) and on two worker processes
// (ProcessCluster; this program is its own worker, --tempest-worker).
//
// Throughput, --tuples GeneratorSpout tuples [id, key, ts, payload16] per run, --repeats rounds,
// every configuration once per round (interleaved, so a noisy neighbour hits all alike):
//   null  storm-perf's ConstSpout -> DevNull: GeneratorSpout -shuffle-> an acking sink
//   id    ConstSpout -> Id -> DevNull: GeneratorSpout -> IdentityBolt (anchors) -> the sink;
//         on two workers every hop crosses (spout and sink in one worker, id in the other)
// each with acking off (topology.acker.executors = 0: acked at emit) and on (the default: the
// spout tasks track their trees, the bolts ack straight to them) with
// topology.max.spout.pending = --pending (0 = unlimited) and = --bounded-pending. The rate is
// tuples / (last tuple at the sink or last ack at the spout, whichever is later - first emit), all
// on CLOCK_MONOTONIC (one clock for every process). Each run is verified: the sink got every id
// once (count, sum of ids), the spout saw every id acked, nothing failed, timed out or was
// replayed.
//
// Latency, once per round, acking on, at a fixed --rate for --latency-seconds: the complete
// latency (the spout's emit -> tree completed histogram; quantiles are bucket lower bounds,
// buckets at most 12.5% wide) of the id shape in process and on two workers, and of the null
// shape on two workers (its trees cross between the processes twice; the id shape's twice or four
// times, by which worker their acker is in), against two
// baselines at the same rate, both as cross_process.cpp measures them: a bare ZeroMQ ping-pong
// of a 40-byte message between two processes (the round trip), and Tempest's one hop (a spout
// stamps each tuple, the bolt in the other worker records arrival - stamp; acking off).
//
//   build-bench/bench/acking                      # 5 rounds, 5M tuples per throughput run
//   build-bench/bench/acking --only "2 workers null" --no-latency --repeats 1   # to profile
//
// The exit code is 1 if any run lost, failed or replayed a tuple.
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "bench/median.h"
#include "bench/process_bench.h"
#include "bench/wait_yield.h"
#include "bolts/identity_bolt.h"
#include "runtime/acking/latency_histogram.h"
#include "runtime/local_cluster.h"
#include "runtime/process/process_cluster.h"
#include "runtime/process/worker.h"
#include "spouts/generator_spout.h"
#include "topology/bolt.h"
#include "topology/spout.h"
#include "topology/topology_builder.h"

namespace {

using tempest::bench::Median;

using namespace tempest;
using Clock = std::chrono::steady_clock;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// ---------------------------------------------------------------------------------------------
// The topologies. Both the supervisor and the workers build them from the same arguments.

struct TopologyArgs {
  std::string shape = "null";  // null | id | hop (the one-hop latency)
  int ackers = -1;             // topology.acker.executors
  int pending = 0;             // topology.max.spout.pending
  uint64_t tuples = 0;
  uint64_t rate = 0;  // GeneratorSpout rate_per_sec, 0 = as fast as it can
  std::string out;    // prefix of the files the spout and the sink write at the end
};

// A GeneratorSpout that also times its first emit and its last ack (the count-th), and writes
// "first_emit_ns last_ack_ns acked" to `out` when closed.
class TimedSpout final : public topology::Spout {
 public:
  TimedSpout(spouts::GeneratorSpoutConfig config, std::string out)
      : inner_(config), count_(config.count), out_(std::move(out)) {}
  void Open(const topology::TopologyContext& context,
            topology::SpoutOutputCollector& collector) override {
    inner_.Open(context, collector);
  }
  topology::NextResult NextTuple() override {
    if (first_ == 0) first_ = NowNs();
    return inner_.NextTuple();
  }
  void Ack(const topology::Value&) override {
    if (++acked_ == count_) last_ = NowNs();
  }
  void Fail(const topology::Value& id) override { inner_.Fail(id); }
  void Close() override {
    std::ofstream f(out_);
    f << first_ << ' ' << last_ << ' ' << acked_ << '\n';
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override {
    inner_.DeclareOutputFields(d);
  }

 private:
  spouts::GeneratorSpout inner_;
  uint64_t count_;
  std::string out_;
  uint64_t acked_ = 0;
  int64_t first_ = 0, last_ = 0;
};

// Acks and drops every tuple (as NullBolt), counting them and timing the first and the
// expected-th (reading the clock only then: a read costs ~40 ns here, a fifth of a hop); writes
// "count id_sum first_ns last_ns" to `out` at cleanup. With `hops`, also records now - ts of
// every tuple (StampSpout's send time) and writes them after.
class TimedSink final : public topology::Bolt {
 public:
  TimedSink(uint64_t expected, std::string out, bool hops)
      : expected_(expected), out_(std::move(out)), hops_(hops) {}
  void Prepare(const topology::TopologyContext&, topology::OutputCollector& collector) override {
    collector_ = &collector;
  }
  void Execute(const topology::Tuple& t) override {
    if (++count_ == 1) first_ = NowNs();
    if (count_ >= expected_) last_ = NowNs();
    id_sum_ += static_cast<uint64_t>(t.GetInt(0));
    if (hops_) hops_ns_.push_back(NowNs() - t.GetInt(2));
    collector_->Ack(t);
  }
  void Cleanup() override {
    std::ofstream f(out_);
    f << count_ << ' ' << id_sum_ << ' ' << first_ << ' ' << last_ << '\n';
    for (int64_t h : hops_ns_) f << h << '\n';
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  uint64_t expected_;
  std::string out_;
  bool hops_;
  topology::OutputCollector* collector_ = nullptr;
  uint64_t count_ = 0, id_sum_ = 0;
  int64_t first_ = 0, last_ = 0;
  std::vector<int64_t> hops_ns_;
};

// For the one-hop latency (as cross_process.cpp): [id, key, ts = send time in ns, payload16] at
// a fixed rate, paced on the monotonic clock, untracked (no message id).
class StampSpout final : public topology::Spout {
 public:
  StampSpout(uint64_t count, uint64_t rate) : count_(count), rate_(rate) {}
  void Open(const topology::TopologyContext&, topology::SpoutOutputCollector& out) override {
    out_ = &out;
    start_ = Clock::now();
  }
  topology::NextResult NextTuple() override {
    if (next_ >= count_) return topology::NextResult::kExhausted;
    const auto due = start_ + std::chrono::nanoseconds(next_ * 1'000'000'000 / rate_);
    if (Clock::now() < due) return topology::NextResult::kIdle;
    const auto id = static_cast<int64_t>(next_++);
    topology::Values v;
    v.emplace_back(id);
    v.emplace_back(id % 1000);
    v.emplace_back(NowNs());
    v.emplace_back(std::string(16, 'x'));
    out_->Emit(std::move(v));
    return topology::NextResult::kEmitted;
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override {
    d.Declare({"id", "key", "ts", "payload"});
  }

 private:
  uint64_t count_, rate_, next_ = 0;
  Clock::time_point start_;
  topology::SpoutOutputCollector* out_ = nullptr;
};

// Task ids follow the sorted component ids: null and hop = devnull 1 (worker 0), spout 2 (worker
// 1); id = devnull 1 (worker 0), id 2 (worker 1), spout 3 (worker 0). So on two workers every hop
// crosses between the processes. The acker tasks come last, one in each worker.
std::shared_ptr<const topology::TopologySpec> BuildTopology(const TopologyArgs& a) {
  topology::TopologyBuilder b("acking-" + a.shape);
  b.Config().acker_executors = a.ackers;
  b.Config().max_spout_pending = a.pending;
  tempest::bench::ApplyWaitYieldOverride(b.Config());
  spouts::GeneratorSpoutConfig c;
  c.count = a.tuples;
  c.rate_per_sec = a.rate;
  const std::string spout_out = a.out + ".spout", sink_out = a.out + ".sink";
  const bool hops = a.shape == "hop";
  if (hops) {
    b.SetSpout("spout", [a] { return std::make_unique<StampSpout>(a.tuples, a.rate); });
  } else {
    b.SetSpout("spout", [c, spout_out] { return std::make_unique<TimedSpout>(c, spout_out); });
  }
  const char* sink_input = "spout";
  if (a.shape == "id") {
    b.SetBolt("id", [] {
       return std::make_unique<bolts::IdentityBolt>(topology::Fields{"id", "key", "ts", "payload"});
     }).ShuffleGrouping("spout");
    sink_input = "id";
  }
  b.SetBolt("devnull", [n = a.tuples, sink_out, hops] {
     return std::make_unique<TimedSink>(n, sink_out, hops);
   }).ShuffleGrouping(sink_input);
  return b.Build();
}

std::string SelfExe() {
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  return std::string(self, n > 0 ? static_cast<std::size_t>(n) : 0);
}

runtime::RunSummary RunTopology(const TopologyArgs& a, bool processes) {
  runtime::RunSummary summary;
  if (processes) {
    runtime::ProcessRunOptions o;
    o.workers = 2;
    o.worker_command = {SelfExe(),
                        "--topology-shape",
                        a.shape,
                        "--ackers",
                        std::to_string(a.ackers),
                        "--pending",
                        std::to_string(a.pending),
                        "--tuples",
                        std::to_string(a.tuples),
                        "--rate",
                        std::to_string(a.rate),
                        "--out",
                        a.out,
                        "--tempest-worker"};
    runtime::ProcessCluster cluster(BuildTopology(a), o);
    summary = cluster.Run();
  } else {
    runtime::LocalCluster cluster(BuildTopology(a));
    summary = cluster.Run();
  }
  if (!summary.completed) throw std::runtime_error("the topology run failed: " + summary.error);
  return summary;
}

std::vector<int64_t> ReadNumbers(const std::string& path) {
  std::ifstream f(path);
  std::vector<int64_t> v;
  for (int64_t x; f >> x;) v.push_back(x);
  std::remove(path.c_str());
  return v;
}

// User + system CPU seconds of this process and its reaped children (the workers).
double CpuSeconds() {
  auto sec = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6;
  };
  double total = 0;
  for (const int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage ru{};
    getrusage(who, &ru);
    total += sec(ru.ru_utime) + sec(ru.ru_stime);
  }
  return total;
}

struct Measurement {
  double seconds = 0;
  double rate = 0;
  double cpu_ns_per_tuple = 0;  // of the whole run, worker start-up included
  std::vector<std::string> problems;
  runtime::ComponentSummary spout;
};

void Expect(Measurement& m, const std::string& what, uint64_t got, uint64_t want) {
  if (got != want) m.problems.push_back(fmt::format("{} {} (want {})", what, got, want));
}

Measurement Measure(const TopologyArgs& a, bool processes) {
  Measurement m;
  runtime::RunSummary s;
  const double cpu0 = CpuSeconds();
  try {
    s = RunTopology(a, processes);
    m.cpu_ns_per_tuple = (CpuSeconds() - cpu0) * 1e9 / static_cast<double>(a.tuples);
  } catch (const std::exception& e) {
    m.problems.push_back(e.what());
    return m;
  }
  const std::vector<int64_t> spout = ReadNumbers(a.out + ".spout");
  const std::vector<int64_t> sink = ReadNumbers(a.out + ".sink");
  if (spout.size() != 3 || sink.size() != 4) {
    m.problems.push_back("the spout or the sink wrote no results");
    return m;
  }
  const uint64_t n = a.tuples;
  Expect(m, "sink count", static_cast<uint64_t>(sink[0]), n);
  Expect(m, "sink sum(id)", static_cast<uint64_t>(sink[1]), n * (n - 1) / 2);
  Expect(m, "spout acked", static_cast<uint64_t>(spout[2]), n);
  for (const runtime::ComponentSummary& c : s.components) {
    Expect(m, c.id + " failed", c.failed, 0);
    Expect(m, c.id + " errors", c.errors, 0);
    Expect(m, c.id + " timed out", c.timed_out, 0);
    Expect(m, c.id + " replayed", c.replayed, 0);
  }
  if (const runtime::ComponentSummary* c = s.Find("spout")) m.spout = *c;
  m.seconds = static_cast<double>(std::max(sink[3], spout[1]) - spout[0]) * 1e-9;
  m.rate = static_cast<double>(n) / m.seconds;
  return m;
}

// One hop across the two workers, acking off: send -> arrival of each tuple in ns (empty if
// any was lost).
std::vector<int64_t> RunHop(uint64_t tuples, uint64_t rate, const std::string& out) {
  const TopologyArgs a{"hop", 0, 0, tuples, rate, out};
  (void)RunTopology(a, true);
  std::vector<int64_t> v = ReadNumbers(a.out + ".sink");
  if (v.size() != tuples + 4 || static_cast<uint64_t>(v[0]) != tuples) return {};
  v.erase(v.begin(), v.begin() + 4);
  return v;
}

// ---------------------------------------------------------------------------------------------
// The bare baseline of the latency: ZeroMQ PUSH/PULL ping-pong between two processes (as
// cross_process.cpp). Returns the round trips in ns.

std::vector<int64_t> RunRtt(uint64_t count, uint64_t rate) {
  const std::string there = fmt::format("ipc:///tmp/tempest-acking-{}-ping", ::getpid());
  const std::string back = fmt::format("ipc:///tmp/tempest-acking-{}-pong", ::getpid());
  const pid_t child = ::fork();
  if (child == 0) {
    zmq::context_t ctx(1);
    zmq::socket_t in(ctx, zmq::socket_type::pull), out(ctx, zmq::socket_type::push);
    in.bind(there);
    out.connect(back);
    for (uint64_t i = 0; i <= count; ++i) {
      zmq::message_t m;
      (void)in.recv(m, zmq::recv_flags::none);
      out.send(m, zmq::send_flags::none);
    }
    // Exit only once the last reply has arrived (libzmq can lose a dying process's last
    // messages): the other side says so.
    zmq::message_t bye;
    (void)in.recv(bye, zmq::recv_flags::none);
    ::_exit(0);
  }
  std::vector<int64_t> rtts;
  {
    zmq::context_t ctx(1);
    zmq::socket_t out(ctx, zmq::socket_type::push), in(ctx, zmq::socket_type::pull);
    in.bind(back);
    out.connect(there);
    rtts.reserve(count);
    char payload[40] = {};
    const auto gap = std::chrono::nanoseconds(1'000'000'000 / std::max<uint64_t>(1, rate));
    auto next = Clock::now();
    for (uint64_t i = 0; i <= count; ++i) {  // the first one warms up the connection
      std::this_thread::sleep_until(next);
      next += gap;
      const int64_t sent = NowNs();
      out.send(zmq::buffer(payload, sizeof payload), zmq::send_flags::none);
      zmq::message_t m;
      (void)in.recv(m, zmq::recv_flags::none);
      if (i > 0) rtts.push_back(NowNs() - sent);
    }
    out.send(zmq::str_buffer("bye"), zmq::send_flags::none);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  for (const std::string& e : {there, back}) std::remove(e.substr(6).c_str());  // "ipc://"
  return rtts;
}

double Percentile(std::vector<int64_t> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return static_cast<double>(v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))]);
}

// The same samples in the runtime's histogram, to compare like with like (bucket lower bounds).
runtime::LatencyCounts Bucketed(const std::vector<int64_t>& ns) {
  runtime::LatencyCounts c;
  for (int64_t x : ns) ++c.counts[runtime::LatencyBuckets::Of(static_cast<uint64_t>(x / 1000))];
  return c;
}

// The complete-latency runs: name, shape, on two workers.
struct LatencyRun {
  const char* name;
  const char* shape;
  bool processes;
};
constexpr LatencyRun kLatencyRuns[] = {
    {"id, 1 process", "id", false},
    {"null, 2 workers", "null", true},
    {"id, 2 workers", "id", true},
};

double Best(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

}  // namespace

int main(int argc, char** argv) {
  // As a worker: [--topology-shape S --ackers A --pending P --tuples N --rate R --out F]
  // --tempest-worker (its worker flags in its environment).
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) != "--tempest-worker") continue;
    TopologyArgs a;
    for (int k = 1; k + 1 < i; k += 2) {
      const std::string_view flag = argv[k];
      if (flag == "--topology-shape") a.shape = argv[k + 1];
      if (flag == "--ackers") a.ackers = std::stoi(argv[k + 1]);
      if (flag == "--pending") a.pending = std::stoi(argv[k + 1]);
      if (flag == "--tuples") a.tuples = std::stoull(argv[k + 1]);
      if (flag == "--rate") a.rate = std::stoull(argv[k + 1]);
      if (flag == "--out") a.out = argv[k + 1];
    }
    return runtime::RunWorker(BuildTopology(a), bench::WorkerFlags());
  }

  CLI::App app{"What acking costs: throughput on/off and complete latency, in the same run."};
  uint64_t tuples = 5'000'000;
  int repeats = 5;
  int pending = 0;
  int bounded_pending = 10'000;
  uint64_t rate = 10'000;
  double latency_seconds = 3;
  std::string only;
  bool no_latency = false;
  app.add_option("--tuples", tuples, "Tuples per throughput run")->capture_default_str();
  app.add_option("--repeats", repeats, "Rounds (best and median reported)")->capture_default_str();
  app.add_option("--pending", pending,
                 "topology.max.spout.pending of the 'on' runs and the latency runs (0: unlimited)")
      ->capture_default_str();
  app.add_option("--bounded-pending", bounded_pending,
                 "topology.max.spout.pending of the 'on, bounded' runs (0: no such runs)")
      ->capture_default_str();
  app.add_option("--rate", rate, "Tuples per second of the latency runs")->capture_default_str();
  app.add_option("--latency-seconds", latency_seconds, "Length of each latency run")
      ->capture_default_str();
  app.add_option("--only", only,
                 "Run only the throughput configurations whose name contains this (profiling)");
  app.add_flag("--no-latency", no_latency, "Skip the latency runs");
  CLI11_PARSE(app, argc, argv);

  const std::string out = fmt::format("/tmp/tempest-acking-{}", ::getpid());
  struct Config {
    std::string name;
    std::string shape;
    bool processes;
    int ackers;
    int pending;
  };
  std::vector<Config> configs;
  for (const bool processes : {false, true}) {
    for (const char* shape : {"null", "id"}) {
      const std::string where = processes ? "2 workers" : "1 process";
      configs.push_back({fmt::format("{} {} off", where, shape), shape, processes, 0, 0});
      configs.push_back(
          {fmt::format("{} {} on/{}", where, shape, pending), shape, processes, -1, pending});
      if (bounded_pending > 0) {
        configs.push_back({fmt::format("{} {} on/{}", where, shape, bounded_pending), shape,
                           processes, -1, bounded_pending});
      }
    }
  }
  std::erase_if(configs, [&](const Config& c) { return c.name.find(only) == std::string::npos; });
  fmt::print("acking: tuples={} repeats={} rate={} latency_seconds={} cores={}\n", tuples, repeats,
             rate, latency_seconds, std::thread::hardware_concurrency());

  std::map<std::string, std::vector<double>> rates, cpu;
  std::map<std::string, std::vector<double>> p50, p90, p99;
  bool all_ok = true;
  const auto latency_tuples = static_cast<uint64_t>(static_cast<double>(rate) * latency_seconds);
  for (int r = 0; r < repeats; ++r) {
    for (const Config& c : configs) {
      const Measurement m = Measure({c.shape, c.ackers, c.pending, tuples, 0, out}, c.processes);
      all_ok = all_ok && m.problems.empty();
      rates[c.name].push_back(m.rate);
      cpu[c.name].push_back(m.cpu_ns_per_tuple);
      fmt::print("  run {} {:<22} {:7.3f} s {:8.3f}M tuples/s {:6.0f} cpu-ns/tuple", r + 1, c.name,
                 m.seconds, m.rate / 1e6, m.cpu_ns_per_tuple);
      if (c.ackers != 0 && m.problems.empty()) {
        fmt::print("  complete p50 {} us p99 {} us", m.spout.complete_latency.Quantile(0.5),
                   m.spout.complete_latency.Quantile(0.99));
      }
      for (const std::string& p : m.problems) fmt::print("  PROBLEM: {}", p);
      fmt::print("\n");
    }
    if (no_latency) continue;
    // Latency: the bare round trip, then the id shape at a fixed rate, acking on.
    const std::vector<int64_t> rtt = RunRtt(latency_tuples, rate);
    const runtime::LatencyCounts rtt_b = Bucketed(rtt);
    p50["rtt"].push_back(Percentile(rtt, 0.5) / 1e3);
    p90["rtt"].push_back(Percentile(rtt, 0.9) / 1e3);
    p99["rtt"].push_back(Percentile(rtt, 0.99) / 1e3);
    p50["rtt (bucketed)"].push_back(static_cast<double>(rtt_b.Quantile(0.5)));
    p90["rtt (bucketed)"].push_back(static_cast<double>(rtt_b.Quantile(0.9)));
    p99["rtt (bucketed)"].push_back(static_cast<double>(rtt_b.Quantile(0.99)));
    fmt::print("  run {} latency: bare ZeroMQ rtt p50 {:.1f} us p99 {:.1f} us", r + 1,
               p50["rtt"].back(), p99["rtt"].back());
    const std::vector<int64_t> hop = RunHop(latency_tuples, rate, out);
    all_ok = all_ok && !hop.empty();
    p50["one hop"].push_back(Percentile(hop, 0.5) / 1e3);
    p90["one hop"].push_back(Percentile(hop, 0.9) / 1e3);
    p99["one hop"].push_back(Percentile(hop, 0.99) / 1e3);
    fmt::print("; one hop p50 {:.1f} us p99 {:.1f} us{}", p50["one hop"].back(),
               p99["one hop"].back(), hop.empty() ? " LOST" : "");
    for (const auto& [name, shape, processes] : kLatencyRuns) {
      const Measurement m = Measure({shape, -1, pending, latency_tuples, rate, out}, processes);
      all_ok = all_ok && m.problems.empty();
      const runtime::LatencyCounts& l = m.spout.complete_latency;
      p50[name].push_back(static_cast<double>(l.Quantile(0.5)));
      p90[name].push_back(static_cast<double>(l.Quantile(0.9)));
      p99[name].push_back(static_cast<double>(l.Quantile(0.99)));
      fmt::print("; {} p50 {} us p99 {} us", name, l.Quantile(0.5), l.Quantile(0.99));
      for (const std::string& p : m.problems) fmt::print("  PROBLEM: {}", p);
    }
    fmt::print("\n");
  }

  fmt::print("\nthroughput (M tuples/s; ratio = median on / median off of the same shape)\n");
  fmt::print("{:<22} {:>9} {:>11} {:>9} {:>18} {:>14}\n", "config", "best", "median", "on/off",
             "on/off per round", "cpu-ns/tuple");
  for (const Config& c : configs) {
    const std::vector<double>& v = rates[c.name];
    const std::vector<double>& off = rates[c.name.substr(0, c.name.rfind(' ')) + " off"];
    std::vector<double> per_round;
    for (std::size_t i = 0; i < v.size() && i < off.size(); ++i) per_round.push_back(v[i] / off[i]);
    fmt::print("{:<22} {:>9.3f} {:>11.3f} {:>9.3f} {:>18.3f} {:>14.0f}\n", c.name, Best(v) / 1e6,
               Median(v) / 1e6, off.empty() ? 0 : Median(v) / Median(off), Median(per_round),
               Median(cpu[c.name]));
  }
  if (no_latency) return all_ok ? 0 : 1;
  fmt::print("\ncomplete latency at {} tuples/s, acking on, max pending {} (us, median of {})\n",
             rate, pending, repeats);
  fmt::print("{:<22} {:>8} {:>8} {:>8}\n", "", "p50", "p90", "p99");
  for (const char* k : {"rtt", "rtt (bucketed)", "one hop"}) {
    fmt::print("{:<22} {:>8.1f} {:>8.1f} {:>8.1f}\n", k, Median(p50[k]), Median(p90[k]),
               Median(p99[k]));
  }
  for (const auto& [k, shape, processes] : kLatencyRuns) {
    fmt::print("{:<22} {:>8.1f} {:>8.1f} {:>8.1f}\n", k, Median(p50[k]), Median(p90[k]),
               Median(p99[k]));
  }
  fmt::print("goal: complete p50 (2 workers) <= 2 x rtt p50 = {:.1f} us: {:.1f} us, {:.2f} x rtt\n",
             2 * Median(p50["rtt"]), Median(p50["id, 2 workers"]),
             Median(p50["id, 2 workers"]) / Median(p50["rtt"]));
  return all_ok ? 0 : 1;
}

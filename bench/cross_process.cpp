// Across two processes, Tempest against bare ZeroMQ baselines measured in the same run.
//
// Throughput, 40-byte tuples [id, key, ts, payload16], --tuples per run, 3 interleaved repeats:
//   raw       two bare processes over PUSH/PULL, the tuples memcpy'd as structs, --batch per
//             message (no serialisation)
//   msgpack   the same with bare msgpack-c: pack [id, key, ts, str] arrays; unpack and read every
//             field (the baseline of issue 4's goal)
//   frame     the same with Tempest's codec only: EncodeFrame of Tuples, DecodeFrame
//   topology  a real topology on two worker processes (ProcessCluster; this program is its own
//             worker): GeneratorSpout -shuffle-> a counting sink in the other worker. Acking off.
//   topology_id  storm-perf's ConstSpout -> Id -> DevNull: GeneratorSpout -> IdentityBolt ->
//             the sink, each hop across the two processes (spout and sink in one, id in the other)
// Each receiver times first to last tuple and checks every id arrived (sum of ids).
//
// Latency, at --rate tuples/s for --latency-tuples tuples:
//   rtt       bare ZeroMQ ping-pong of a 40-byte message between two processes: the round trip
//   hop       the topology's one hop: a spout stamps each tuple with CLOCK_MONOTONIC (the same
//             clock in every process), the bolt in the other worker records arrival - stamp
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <msgpack.hpp>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "bench/median.h"
#include "bench/process_bench.h"
#include "bolts/identity_bolt.h"
#include "spouts/generator_spout.h"
#include "topology/bolt.h"
#include "topology/spout.h"
#include "topology/topology_builder.h"
#include "transport/frame.h"

namespace {

using tempest::bench::Median;

using namespace tempest;
using bench::Clock;
using bench::kPayload;
using bench::NowNs;

// ---------------------------------------------------------------------------------------------
// Bare baselines: two processes, PUSH/PULL over ipc://.

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

[[gnu::noinline]] void benchmark_sink(int64_t, int64_t, const std::string&) {}

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
    bench::StringSink sink{&out};
    msgpack::packer<bench::StringSink> pk(sink);
    bench::PackGeneratorRows(pk, first, n);
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
  for (std::size_t i = 0; i < frame.rows.size(); ++i) {
    id_sum += static_cast<uint64_t>(frame.rows[i].cell(0).Int());
  }
  return frame.rows.size();
}

struct Result {
  double seconds = 0;
  uint64_t tuples = 0;
  bool ok = false;
};

std::string Endpoint(const char* what) { return bench::IpcEndpoint("cross-process", what); }

Result RunBare(const std::string& mode, Setup& s) {
  s.data_endpoint = Endpoint("data");
  s.ack_endpoint = Endpoint("ack");
  const pid_t child = bench::ForkChild([&] {
    bench::PushBatches(s.data_endpoint, s.ack_endpoint, s.tuples, s.batch,
                       [&](uint64_t first, uint64_t n, std::string& out) {
                         BuildMessage(mode, s, first, n, out);
                       });
  });
  Result r;
  uint64_t id_sum = 0;
  transport::Frame frame;
  const bench::PullTimes t = bench::PullUntilDone(
      s.data_endpoint, {s.ack_endpoint},
      [&](const zmq::message_t& msg) { r.tuples += ReadMessage(mode, s, msg, id_sum, frame); });
  r.seconds = std::chrono::duration<double>(t.last - t.first).count();
  const uint64_t n = s.tuples;
  r.ok = r.tuples == n && id_sum == n * (n - 1) / 2;
  r.ok = bench::ReapedOk(child) && r.ok;
  return r;
}

// Bare ZeroMQ round trips of a 40-byte message, one every 1/rate s; returns the RTTs in ns.
std::vector<int64_t> RunRtt(uint64_t count, uint64_t rate) {
  const std::string there = Endpoint("ping"), back = Endpoint("pong");
  const pid_t child = bench::ForkChild([&] {
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
  });
  zmq::context_t ctx(1);
  zmq::socket_t out(ctx, zmq::socket_type::push), in(ctx, zmq::socket_type::pull);
  in.bind(back);
  out.connect(there);
  std::vector<int64_t> rtts;
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
  (void)bench::ReapedOk(child);
  return rtts;
}

// ---------------------------------------------------------------------------------------------
// The topologies: this program is also their worker (--tempest-worker ...).

// [id, sent_ns, payload16] at a fixed rate, paced on the monotonic clock.
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
    topology::Values v;
    v.emplace_back(static_cast<int64_t>(next_++));
    v.emplace_back(NowNs());
    v.emplace_back(kPayload);
    out_->Emit(std::move(v));
    return topology::NextResult::kEmitted;
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override {
    d.Declare({"id", "sent_ns", "payload"});
  }

 private:
  uint64_t count_, rate_, next_ = 0;
  Clock::time_point start_;
  topology::SpoutOutputCollector* out_ = nullptr;
};

struct TopologyArgs {
  std::string shape = "throughput";  // throughput_id (two hops) or latency
  uint64_t tuples = 0;
  uint64_t rate = 0;
  std::string out;
};

std::shared_ptr<const topology::TopologySpec> BuildTopology(const TopologyArgs& a) {
  topology::TopologyBuilder b("cross-process");
  b.Config().acker_executors = 0;  // acking off: the sinks do not ack
  const bool latency = a.shape == "latency";
  if (latency) {
    b.SetSpout("spout", [a] { return std::make_unique<StampSpout>(a.tuples, a.rate); });
  } else {
    spouts::GeneratorSpoutConfig c;
    c.count = a.tuples;
    b.SetSpout("spout", [c] { return std::make_unique<spouts::GeneratorSpout>(c); });
  }
  // Tasks: bolt 1 (worker 0), spout 2 (worker 1): one hop across processes. With the identity
  // bolt: bolt 1 (worker 0), id 2 (worker 1), spout 3 (worker 0): both hops cross.
  const char* sink_input = "spout";
  if (a.shape == "throughput_id") {
    b.SetBolt("id", [] {
       return std::make_unique<bolts::IdentityBolt>(topology::Fields{"id", "key", "ts", "payload"});
     }).ShuffleGrouping("spout");
    sink_input = "id";
  }
  const auto timing =
      latency ? bench::TimedSink::Timing::kLatency : bench::TimedSink::Timing::kEachTuple;
  b.SetBolt("bolt", [a, timing] {
     return std::make_unique<bench::TimedSink>(a.out, timing);
   }).ShuffleGrouping(sink_input);
  return b.Build();
}

// Runs the topology on 2 workers; returns the numbers in the sink's file.
std::vector<int64_t> RunTopology(const TopologyArgs& a) {
  const runtime::RunSummary summary =
      bench::RunOnWorkers(BuildTopology(a), 2,
                          {"--topology-shape", a.shape, "--tuples", std::to_string(a.tuples),
                           "--rate", std::to_string(a.rate), "--out", a.out})
          .summary;
  if (!summary.completed) throw std::runtime_error("the topology run failed: " + summary.error);
  return bench::ReadNumbers(a.out);
}

Result RunTopologyThroughput(const std::string& shape, uint64_t tuples, const std::string& out) {
  const std::vector<int64_t> v = RunTopology({shape, tuples, 0, out});
  Result r;
  if (v.size() < 4) return r;
  r.tuples = static_cast<uint64_t>(v[0]);
  r.seconds = static_cast<double>(v[3] - v[2]) * 1e-9;
  r.ok = r.tuples == tuples && static_cast<uint64_t>(v[1]) == tuples * (tuples - 1) / 2;
  return r;
}

double Percentile(std::vector<int64_t> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return static_cast<double>(v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))]);
}

}  // namespace

int main(int argc, char** argv) {
  // As a worker of the topology shapes: [--topology-shape S --tuples N --rate R --out F]
  // --tempest-worker (its worker flags in its environment).
  const std::optional<int> worker =
      bench::RunAsWorker(argc, argv, [](const std::map<std::string, std::string>& flags) {
        return BuildTopology({flags.at("--topology-shape"), std::stoull(flags.at("--tuples")),
                              std::stoull(flags.at("--rate")), flags.at("--out")});
      });
  if (worker) return *worker;

  CLI::App app{"Across two processes: Tempest against bare ZeroMQ baselines in the same run."};
  Setup s;
  s.tuples = 10'000'000;
  int repeats = 3;
  uint64_t rate = 100'000;
  uint64_t latency_tuples = 200'000;
  app.add_option("--tuples", s.tuples, "Tuples per throughput run")->capture_default_str();
  app.add_option("--batch", s.batch, "Tuples per message of the bare modes")->capture_default_str();
  app.add_option("--repeats", repeats, "Runs per mode (best and median reported)")
      ->capture_default_str();
  app.add_option("--rate", rate, "Tuples per second of the latency runs")->capture_default_str();
  app.add_option("--latency-tuples", latency_tuples, "Tuples per latency run")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  topology::TopologyBuilder b;
  b.SetSpout("gen", [] { return std::make_unique<spouts::GeneratorSpout>(); });
  s.spec = b.Build();
  s.table = std::make_unique<transport::StreamTable>(s.spec);
  s.schema = s.spec->Find("gen")->FindStream("default");
  const std::string out = fmt::format("/tmp/tempest-cross-process-{}.out", ::getpid());

  const std::vector<std::string> modes = {"raw", "msgpack", "frame", "topology", "topology_id"};
  std::map<std::string, std::vector<double>> rates;
  std::map<std::string, std::vector<double>> p50, p99;
  bool all_ok = true;
  for (int r = 0; r < repeats; ++r) {
    for (const std::string& mode : modes) {
      const Result res = mode == "topology" ? RunTopologyThroughput("throughput", s.tuples, out)
                         : mode == "topology_id"
                             ? RunTopologyThroughput("throughput_id", s.tuples, out)
                             : RunBare(mode, s);
      all_ok = all_ok && res.ok;
      const double rate_now = static_cast<double>(res.tuples) / res.seconds;
      rates[mode].push_back(rate_now);
      fmt::print("  run {} {:<11} {:>10} tuples {:7.3f} s {:8.2f}M tuples/s{}\n", r + 1, mode,
                 res.tuples, res.seconds, rate_now / 1e6, res.ok ? "" : "  LOST OR CORRUPT");
    }
    const std::vector<int64_t> rtt = RunRtt(latency_tuples / 10, rate / 10);
    std::vector<int64_t> hop = RunTopology({"latency", latency_tuples, rate, out});
    const bool hop_ok = hop.size() == latency_tuples + 4;
    all_ok = all_ok && hop_ok;
    if (hop.size() >= 4) hop.erase(hop.begin(), hop.begin() + 4);
    p50["rtt"].push_back(Percentile(rtt, 0.50) / 1e3);
    p99["rtt"].push_back(Percentile(rtt, 0.99) / 1e3);
    p50["hop"].push_back(Percentile(hop, 0.50) / 1e3);
    p99["hop"].push_back(Percentile(hop, 0.99) / 1e3);
    fmt::print(
        "  run {} latency: bare rtt p50 {:.1f} us p99 {:.1f} us; one hop p50 {:.1f} us p99 "
        "{:.1f} us{}\n",
        r + 1, p50["rtt"].back(), p99["rtt"].back(), p50["hop"].back(), p99["hop"].back(),
        hop_ok ? "" : "  LOST");
  }
  std::remove(out.c_str());
  const double base = Median(rates["msgpack"]);
  fmt::print("\n{:<11} {:>10} {:>12} {:>16}\n", "mode", "best M/s", "median M/s", "median/msgpack");
  for (const std::string& mode : modes) {
    fmt::print("{:<11} {:>10.2f} {:>12.2f} {:>16.3f}\n", mode,
               *std::max_element(rates[mode].begin(), rates[mode].end()) / 1e6,
               Median(rates[mode]) / 1e6, Median(rates[mode]) / base);
  }
  const double rtt50 = Median(p50["rtt"]);
  fmt::print(
      "\nlatency at {} tuples/s (median of {} runs): bare ZeroMQ round trip p50 {:.1f} us "
      "p99 {:.1f} us; Tempest one hop p50 {:.1f} us p99 {:.1f} us; goal p50 <= rtt/2 + 15 "
      "= {:.1f} us\n",
      rate, repeats, rtt50, Median(p99["rtt"]), Median(p50["hop"]), Median(p99["hop"]),
      rtt50 / 2 + 15);
  return all_ok ? 0 : 1;
}

// Windowed bolts at full speed (issue 6): a GeneratorSpout as fast as it goes into one bolt task,
// in one process, acking on (one acker) — each shape against the same run with a NullBolt in the
// window's place, measured alternately in the same process:
//
//   null:            GeneratorSpout -> NullBolt (the baseline: no window)
//   count_sliding:   -> sliding count window (length 1000, slide 100), counts its tuples
//   count_tumbling:  -> tumbling count window (1000), counts its tuples
//   event_sliding:   -> event-time sliding window (length 1000 ms, slide 100 ms of ts; the
//                       generator's ts advances 1 ms per tuple), counts its tuples
//   count_sliding_emit: as count_sliding, plus one emit per activation anchored to the window
//                       (1000 anchors), to a NullBolt
//
// Every run is verified: every spout tuple acked, none failed, and the windows counted exactly
// the tuples expected. Exit code 1 if a run was not.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/median.h"
#include "bolts/null_bolt.h"
#include "bolts/windowing/windowed_bolt.h"
#include "runtime/local_cluster.h"
#include "spouts/generator_spout.h"
#include "topology/topology_builder.h"

namespace {

using tempest::bench::Median;

namespace bolts = tempest::bolts;
namespace runtime = tempest::runtime;
namespace topology = tempest::topology;

// Sums the sizes of the windows it sees (so the work per activation is touching the window) and
// optionally emits that size, anchored to the window.
class CountingWindow final : public bolts::WindowedBolt {
 public:
  CountingWindow(std::atomic<uint64_t>* total, bool emit) : total_(total), emit_(emit) {}
  void Prepare(const topology::TopologyContext&, topology::OutputCollector& out) override {
    out_ = &out;
  }
  void Execute(const bolts::TupleWindow& w) override {
    uint64_t n = 0;
    for (const topology::Tuple* t : w.Get()) n += t->size() > 0 ? 1 : 0;
    total_->fetch_add(n, std::memory_order_relaxed);
    if (emit_) out_->Emit(topology::Values{static_cast<int64_t>(n)});
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override { d.Declare({"n"}); }

 private:
  std::atomic<uint64_t>* total_;
  bool emit_;
  topology::OutputCollector* out_ = nullptr;
};

struct Shape {
  std::string name;
  std::function<bolts::WindowConfig()> window;  // null: NullBolt
  bool emit = false;
  // What the window sizes must add up to for n tuples.
  std::function<uint64_t(uint64_t)> expected_total;
};

struct Result {
  double seconds = 0;
  bool ok = false;
};

Result RunOnce(const Shape& shape, uint64_t n) {
  std::atomic<uint64_t> total{0};
  topology::TopologyBuilder b("bench-windowing");
  b.Config().acker_executors = 1;
  b.Config().message_timeout_secs = 300;
  tempest::spouts::GeneratorSpoutConfig gen;
  gen.count = n;
  b.SetSpout("gen", [gen] { return std::make_unique<tempest::spouts::GeneratorSpout>(gen); });
  if (!shape.window) {
    b.SetBolt("window", [] { return std::make_unique<bolts::NullBolt>(); }).ShuffleGrouping("gen");
  } else {
    const bolts::WindowConfig config = shape.window();
    const bool emit = shape.emit;
    b.SetBolt("window", [config, emit, &total] {
       return bolts::AdaptWindowedBolt(std::make_unique<CountingWindow>(&total, emit), config);
     }).ShuffleGrouping("gen");
    if (emit) {
      b.SetBolt("sink", [] {
         return std::make_unique<bolts::NullBolt>();
       }).ShuffleGrouping("window");
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const runtime::RunSummary summary = runtime::LocalCluster(b.Build()).Run();
  Result r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const runtime::ComponentSummary* spout = summary.Find("gen");
  r.ok = summary.completed && spout != nullptr && spout->acked == n && spout->failed == 0;
  if (shape.expected_total && total.load() != shape.expected_total(n)) {
    fmt::print(stderr, "{}: windows held {} tuples in all, expected {}\n", shape.name, total.load(),
               shape.expected_total(n));
    r.ok = false;
  }
  if (!r.ok) fmt::print(stderr, "{}: run not verified ({})\n", shape.name, summary.error);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Windowed bolts vs no window, same run (BENCHMARKS.md)");
  uint64_t n = 2'000'000;
  int repeats = 5;
  app.add_option("--tuples", n, "Tuples per run (a multiple of 1000)");
  app.add_option("--repeats", repeats, "Rounds; each round runs every shape once, in turn");
  std::string only;
  app.add_option("--only", only, "Run only this shape (and null, the baseline)");
  CLI11_PARSE(app, argc, argv);

  using bolts::WindowConfig;
  using bolts::WindowSpan;
  // Sliding count 1000/100 over n tuples: activation k (k = 1..n/100) holds min(100k, 1000).
  auto sliding_total = [](uint64_t n) {
    uint64_t sum = 0;
    for (uint64_t k = 1; k <= n / 100; ++k) sum += std::min<uint64_t>(100 * k, 1000);
    return sum;
  };
  const std::vector<Shape> shapes = {
      {"null", nullptr, false, nullptr},
      {"count_sliding",
       [] { return WindowConfig::Sliding(WindowSpan::Count(1000), WindowSpan::Count(100)); }, false,
       sliding_total},
      {"count_tumbling", [] { return WindowConfig::Tumbling(WindowSpan::Count(1000)); }, false,
       [](uint64_t n) { return n; }},
      {"event_sliding",
       [] {
         WindowConfig c =
             WindowConfig::Sliding(WindowSpan::DurationMs(1000), WindowSpan::DurationMs(100));
         c.timestamp_field = "ts";
         c.watermark_interval_ms = 0;
         return c;
       },
       // ts = id ms: each tuple is in exactly 10 windows, all fired by the end of the input.
       false, [](uint64_t n) { return 10 * n; }},
      {"count_sliding_emit",
       [] { return WindowConfig::Sliding(WindowSpan::Count(1000), WindowSpan::Count(100)); }, true,
       sliding_total},
  };
  std::map<std::string, std::vector<double>> rates;
  bool ok = true;
  for (int round = 0; round < repeats; ++round) {
    for (const Shape& s : shapes) {
      if (!only.empty() && s.name != only && s.name != "null") continue;
      const Result r = RunOnce(s, n);
      ok = ok && r.ok;
      rates[s.name].push_back(static_cast<double>(n) / r.seconds);
    }
  }
  const double base = Median(rates["null"]);
  fmt::print("{} tuples per run, {} rounds, medians; ratio = shape / null in the same rounds\n", n,
             repeats);
  fmt::print("{:<20} {:>12} {:>8}\n", "shape", "M tuples/s", "ratio");
  for (const Shape& s : shapes) {
    if (rates[s.name].empty()) continue;
    const double m = Median(rates[s.name]);
    fmt::print("{:<20} {:>12.3f} {:>8.2f}\n", s.name, m / 1e6, m / base);
  }
  return ok ? 0 : 1;
}

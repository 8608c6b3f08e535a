// JoinBolt throughput (issue 7): two streams of N tuples each (GeneratorSpout rows [id, key, ts,
// payload], key = id % 1000), joined on `key` in tumbling count windows of W tuples, in one
// process, against a bare single-thread hash join of the same rows in the same run:
//
//   bare:     per window of W rows (W/2 of each stream, rows i..i+W/2 of both), hash the second
//             stream's rows on the key (a flat open-addressing table built once per window with
//             reserved capacity), probe with the first stream's and build one output row
//             [a.id, b.id] per match, handed to a sink that only counts.
//   tempest:  sources -> JoinBolt (from a, inner join b, select "a:id, b:id", tumbling count
//             window W) -> NullBolt; acking off, so both sides do the same work: the join and one
//             row per match. Sources (--sources): `paired` (the default) is one spout that emits
//             row i on stream a and then on stream b, so each window holds exactly the rows of
//             the bare join's window and joins exactly its rows (checked); `separate` is two
//             GeneratorSpouts a and b, whose windows are cut by the order their batches arrive
//             in, so they hold uneven shares of the streams and join fewer rows (1.7-3M instead
//             of 5M at W = 10k): less work, a flattering ratio. With --parallelism P the join runs
//             as P tasks fields-grouped on the key, each with windows of W / P tuples (its share
//             of the keys). --chaining sets topology.chaining: the sink then runs on the join's
//             thread.
//   alone:    the same JoinBolt fed the bare join's rows on the benchmark's own thread (each row
//             copied into a Tuple, a and b alternating, emits only counted): the join's own cost
//             without the runtime's threads and queues, printed under each window's line.
//
// Rates are input tuples per second (2N / elapsed). Each Tempest run is checked: every input
// executed by the join, every row it emitted received by the sink, no errors, and with paired
// sources on one task the bare join's row count. Exit code 1 if a run failed its check.
#include <fmt/format.h>
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/bare_join.h"
#include "bench/join_topology.h"
#include "bench/median.h"
#include "bench/wait_yield.h"
#include "bolts/identity_bolt.h"
#include "bolts/join/join_bolt.h"
#include "bolts/null_bolt.h"
#include "bolts/windowing/window_manager.h"
#include "runtime/local_cluster.h"
#include "spouts/generator_spout.h"
#include "topology/topology_builder.h"
#include "topology/topology_context.h"

namespace {

using tempest::bench::Median;

namespace bolts = tempest::bolts;
namespace runtime = tempest::runtime;
namespace topology = tempest::topology;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kKeys = 1000;

struct Row {
  topology::Values values;  // id, key, ts, payload: as GeneratorSpout emits them
};

std::vector<Row> MakeRows(uint64_t n) {
  std::vector<Row> rows(n);
  const std::string payload(16, 'x');
  for (uint64_t i = 0; i < n; ++i) {
    rows[i].values = {static_cast<int64_t>(i), static_cast<int64_t>(i % kKeys),
                      static_cast<int64_t>(i), payload};
  }
  return rows;
}

// The bare join (bench/bare_join.h), windows of W/2 rows of each stream: returns the output rows
// produced.
uint64_t BareJoin(const std::vector<Row>& a, const std::vector<Row>& b, uint64_t window) {
  const uint64_t half = window / 2;
  tempest::bench::WindowHashJoin<Row> join;
  uint64_t produced = 0;
  for (uint64_t start = 0; start < a.size(); start += half) {
    const uint64_t n = std::min<uint64_t>(half, a.size() - start);
    produced += join.Join(std::span(a).subspan(start, n), std::span(b).subspan(start, n));
  }
  if (join.checksum() == -1) fmt::print("");  // keep the rows observable
  return produced;
}

struct TempestResult {
  double seconds = 0;
  uint64_t rows = 0;
  bool ok = false;
};

// The sources of the Tempest runs: one PairedSpout (its windows hold exactly the bare join's
// rows) or two GeneratorSpouts (windows cut by the order their batches arrive in).
enum class Sources { kPaired, kSeparate };

// Adds the sources and subscribes `bolt` to them (globally: one task takes every input).
template <typename Declarer>
void Subscribe(Declarer&& bolt, Sources sources) {
  if (sources == Sources::kPaired) {
    bolt.GlobalGrouping("ab", "a").GlobalGrouping("ab", "b");
  } else {
    bolt.GlobalGrouping("a").GlobalGrouping("b");
  }
}

void AddSources(topology::TopologyBuilder& b, uint64_t n, Sources sources) {
  if (sources == Sources::kPaired) {
    tempest::bench::AddPairedSpout(b, n, kKeys);
  } else {
    tempest::bench::AddJoinSpouts(b, n, kKeys);
  }
}

// The topology settings the command line chose.
struct Tuning {
  int receive_buffer = 0;
  bool chaining = false;
};

TempestResult RunTempest(uint64_t n, uint64_t window, int parallelism, Tuning tuning,
                         Sources sources) {
  topology::TopologyBuilder b("bench-join");
  b.Config().acker_executors = 0;
  b.Config().receive_buffer_size = tuning.receive_buffer;
  b.Config().chaining = tuning.chaining;
  tempest::bench::ApplyWaitYieldOverride(b.Config());
  AddSources(b, n, sources);
  const bolts::JoinBoltBuilder join = tempest::bench::JoinBToA(
      window / static_cast<uint64_t>(parallelism),
      sources == Sources::kPaired ? bolts::JoinSelector::kStream : bolts::JoinSelector::kSource);
  if (parallelism == 1) {
    Subscribe(b.SetBolt("join", join.Build()), sources);
  } else if (sources == Sources::kPaired) {
    b.SetBolt("join", join.Build(), parallelism)
        .FieldsGrouping("ab", "a", topology::Fields{"key"})
        .FieldsGrouping("ab", "b", topology::Fields{"key"});
  } else {
    b.SetBolt("join", join.Build(), parallelism)
        .FieldsGrouping("a", topology::Fields{"key"})
        .FieldsGrouping("b", topology::Fields{"key"});
  }
  b.SetBolt("sink", [] { return std::make_unique<bolts::NullBolt>(); }).ShuffleGrouping("join");
  const auto start = Clock::now();
  const runtime::RunSummary summary = runtime::LocalCluster(b.Build()).Run();
  TempestResult r;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const runtime::ComponentSummary* sink = summary.Find("sink");
  const runtime::ComponentSummary* joined = summary.Find("join");
  r.rows = sink != nullptr ? sink->executed : 0;
  r.ok = summary.completed && joined != nullptr && joined->executed == 2 * n &&
         joined->emitted == r.rows && summary.Find("join")->errors == 0;
  return r;
}

// The runtime's own rate for the same spouts, acking off, input tuples per second: both into an
// IdentityBolt (one output row per input) and on into a NullBolt. 0 if the run failed its check.
double RunCeiling(uint64_t n, Tuning tuning, Sources sources) {
  topology::TopologyBuilder b("bench-join-ceiling");
  b.Config().acker_executors = 0;
  b.Config().receive_buffer_size = tuning.receive_buffer;
  b.Config().chaining = tuning.chaining;
  tempest::bench::ApplyWaitYieldOverride(b.Config());
  AddSources(b, n, sources);
  Subscribe(b.SetBolt("identity",
                      [] {
                        return std::make_unique<bolts::IdentityBolt>(
                            topology::Fields{"id", "key", "ts", "payload"});
                      }),
            sources);
  b.SetBolt("sink", [] { return std::make_unique<bolts::NullBolt>(); }).ShuffleGrouping("identity");
  const auto start = Clock::now();
  const runtime::RunSummary summary = runtime::LocalCluster(b.Build()).Run();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const runtime::ComponentSummary* sink = summary.Find("sink");
  if (!summary.completed || sink == nullptr || sink->executed != 2 * n) return 0;
  return 2.0 * static_cast<double>(n) / seconds;
}

// Heap bytes per window tuple that a tumbling count window of w GeneratorSpout rows holds at
// its peak, in steady state (3 windows fed through a WindowManager<Tuple>, as the windowed-bolt
// adapter feeds it; heap sampled every 1,000 adds): the events (tuple, time stamp, mark) and,
// with keep_expired (a bolt that reads GetExpired), the previous window's tuples until the next
// activation lists them. Against the raw size of the values: 8 bytes per integer, the payload's
// characters.
void MeasureWindowMemory(uint64_t w, bool keep_expired) {
  auto schema = std::make_shared<topology::StreamSchema>();
  schema->fields =
      std::make_shared<const topology::Fields>(topology::Fields{"id", "key", "ts", "payload"});
  const std::vector<Row> rows = MakeRows(3 * w);
  const auto heap = [] { return mallinfo2().uordblks + mallinfo2().hblkhd; };
  const std::size_t before = heap();
  std::size_t peak = before;
  {
    bolts::WindowPolicy p;
    p.trigger = bolts::TriggerKind::kCount;
    p.slide = static_cast<int64_t>(w);
    p.eviction = bolts::EvictionKind::kCount;
    p.length = static_cast<int64_t>(w);
    p.tumbling = true;
    p.keep_expired = keep_expired;
    bolts::WindowManager<topology::Tuple> window(
        p, [](const auto&) {}, [](topology::Tuple&) {});
    uint64_t added = 0;
    for (const Row& r : rows) {
      topology::Tuple t(schema.get(), 1, r.values);
      tempest::topology::TupleAccess::MutableAck(t).anchors.push_back(
          {1, 2});  // tracked, as with acking on
      window.Add(std::move(t), 0);
      if (++added % 1000 == 0) peak = std::max(peak, heap());
    }
  }
  const double held = static_cast<double>(peak - before) / static_cast<double>(w);
  const double raw = 3 * 8 + static_cast<double>(rows[0].values[3].AsString().size());
  fmt::print(
      "window memory, tumbling {} ({}): {:.0f} bytes per window tuple at the peak, raw values "
      "{:.0f} bytes: {:.1f}x (sizeof(Tuple) = {})\n",
      w, keep_expired ? "expired kept for GetExpired" : "expired released, as JoinBolt", held, raw,
      held / raw, sizeof(topology::Tuple));
}

// A collector that only counts what the join emits, and samples the heap every 1,000 rows: the
// join's per-window arrays are at their largest while it emits.
class SamplingCollector final : public topology::OutputCollector {
 public:
  explicit SamplingCollector(std::function<void()> sample) : sample_(std::move(sample)) {}
  uint64_t emitted() const noexcept { return emitted_; }
  void Ack(const topology::Tuple&) override {}
  void Fail(const topology::Tuple&) override {}
  void ResetTimeout(const topology::Tuple&) override {}
  void ReportError(std::string_view message) override { fmt::print("error: {}\n", message); }

 private:
  void DoEmit(std::string_view, int, topology::Anchors, topology::Values&&) override {
    if (++emitted_ % 1000 == 0) sample_();
  }
  std::function<void()> sample_;
  uint64_t emitted_ = 0;
};

// The benchmark's JoinBolt (tumbling count windows of w, through its windowed-bolt adapter)
// driven on this thread, without the runtime: Feed(i, row) hands it input i as a queue would,
// a and b alternating.
class DirectJoin {
 public:
  DirectJoin(uint64_t w, std::function<void()> sample) : out_(std::move(sample)) {
    topology::TopologyBuilder b("bench-join-direct");
    tempest::bench::AddJoinSpouts(b, 1, kKeys);
    b.SetBolt("join", tempest::bench::JoinBToA(w).Build()).GlobalGrouping("a").GlobalGrouping("b");
    const auto spec = b.Build();
    const auto layout = std::make_shared<const topology::TaskLayout>(*spec);
    context_ =
        std::make_unique<topology::TopologyContext>(spec, layout, layout->TasksOf("join").front());
    for (int i = 0; i < 2; ++i) {
      schemas_[i].component = i == 0 ? "a" : "b";
      schemas_[i].stream = "default";
      schemas_[i].fields =
          std::make_shared<const topology::Fields>(topology::Fields{"id", "key", "ts", "payload"});
    }
    join_ = tempest::bench::JoinBToA(w).Build()();
    join_->Prepare(*context_, out_);
    owning_ = dynamic_cast<topology::OwningBolt*>(join_.get());  // found once, as the executor does
  }
  // `anchor`: an ack anchor for the input (as with acking on), or none.
  void Feed(uint64_t i, const Row& row, std::optional<topology::AckMeta::Anchor> anchor = {}) {
    topology::Tuple t(&schemas_[i % 2], 1 + static_cast<int>(i % 2), row.values);
    if (anchor) tempest::topology::TupleAccess::MutableAck(t).anchors.push_back(*anchor);
    owning_->ExecuteOwned(t);
  }
  uint64_t emitted() const noexcept { return out_.emitted(); }

 private:
  SamplingCollector out_;
  std::unique_ptr<topology::TopologyContext> context_;
  topology::StreamSchema schemas_[2];
  std::unique_ptr<topology::Bolt> join_;
  topology::OwningBolt* owning_ = nullptr;
};

// Heap bytes per window tuple of a real JoinBolt (the benchmark's join, tumbling count windows
// of w) fed 3 windows of rows through its adapter as the runtime feeds it, a and b alternating:
// the packed rows, the window's events and the join's per-window arrays, at the peak (sampled
// every 1,000 inputs and every 1,000 output rows). `tracked`: each input carries one ack anchor,
// as with acking on. Against the raw size of the values: 8 bytes per integer, the payload's
// characters.
void MeasureJoinMemory(uint64_t w, bool tracked) {
  const std::vector<Row> rows = MakeRows(3 * w / 2 + 1);
  const auto heap = [] { return mallinfo2().uordblks + mallinfo2().hblkhd; };
  const std::size_t before = heap();
  std::size_t peak = before;
  uint64_t emitted = 0;
  {
    DirectJoin join(w, [&] { peak = std::max(peak, heap()); });
    for (uint64_t i = 0; i < 3 * w; ++i) {
      std::optional<topology::AckMeta::Anchor> anchor;
      if (tracked) anchor = topology::AckMeta::Anchor{0x9e3779b97f4a7c15 * (i + 1), i + 7};
      join.Feed(i, rows[i / 2], anchor);
      if ((i + 1) % 1000 == 0) peak = std::max(peak, heap());
    }
    emitted = join.emitted();
  }
  const double held = static_cast<double>(peak - before) / static_cast<double>(w);
  const double raw = 3 * 8 + static_cast<double>(rows[0].values[3].AsString().size());
  fmt::print(
      "JoinBolt memory, tumbling {} ({}): {:.0f} bytes per window tuple at the peak, raw values "
      "{:.0f} bytes: {:.2f}x ({} rows joined)\n",
      w, tracked ? "each input tracked, as with acking on" : "acking off", held, raw, held / raw,
      emitted);
}

// JoinBolt alone: the same 2n rows (a and b alternating, so every window joins as many rows as
// the bare join's) fed straight to it on this thread, each copied into a Tuple as the runtime
// would hand it over; its emits are counted, not sent. Input rows per second. What separates it
// from the bare join is the join itself; what separates the topology from it is the runtime.
double RunJoinAlone(const std::vector<Row>& a, const std::vector<Row>& b, uint64_t w,
                    uint64_t& emitted) {
  DirectJoin join(w, [] {});
  const auto start = Clock::now();
  for (uint64_t i = 0; i < 2 * a.size(); ++i) join.Feed(i, i % 2 == 0 ? a[i / 2] : b[i / 2]);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  emitted = join.emitted();
  return 2.0 * static_cast<double>(a.size()) / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("JoinBolt vs a bare hash join of the same rows, same run (BENCHMARKS.md)");
  uint64_t n = 1'000'000;
  int repeats = 3;
  std::vector<uint64_t> windows = {10'000, 100'000};
  app.add_option("--tuples", n, "Tuples per stream");
  app.add_option("--repeats", repeats, "Rounds");
  app.add_option("--windows", windows, "Tumbling count window lengths");
  int parallelism = 1;
  app.add_option("--parallelism", parallelism,
                 "Join tasks (fields-grouped on the key); each holds windows of W / parallelism");
  Tuning tuning;
  app.add_option("--receive-buffer", tuning.receive_buffer,
                 "topology.executor.receive.buffer.size of the JoinBolt topology (0: default)")
      ->check(CLI::Range(0, topology::kMaxReceiveBufferSize));
  app.add_flag("--chaining", tuning.chaining,
               "topology.chaining: the sink runs on the join's thread (and, for the ceiling, on "
               "the IdentityBolt's)");
  Sources sources = Sources::kPaired;
  app.add_option("--sources", sources,
                 "paired: one spout emits row i on a, then on b (windows hold the bare join's "
                 "rows); separate: two spouts, windows cut by arrival order")
      ->transform(CLI::CheckedTransformer(std::map<std::string, Sources>{
          {"paired", Sources::kPaired}, {"separate", Sources::kSeparate}}));
  bool alone_only = false, tempest_only = false;
  app.add_flag("--alone-only", alone_only, "Only the JoinBolt alone (for profiling)");
  app.add_flag("--tempest-only", tempest_only, "Only the JoinBolt topology (for profiling)");
  CLI11_PARSE(app, argc, argv);

  if (tempest_only) {
    for (uint64_t w : windows) {
      for (int round = 0; round < repeats; ++round) {
        const TempestResult r = RunTempest(n, w, parallelism, tuning, sources);
        fmt::print("JoinBolt topology, window {}: {:.2f} M in/s{}\n", w,
                   2.0 * static_cast<double>(n) / r.seconds / 1e6, r.ok ? "" : " (not verified)");
      }
    }
    return 0;
  }

  if (alone_only) {
    const std::vector<Row> a = MakeRows(n), b = MakeRows(n);
    for (uint64_t w : windows) {
      for (int round = 0; round < repeats; ++round) {
        uint64_t rows = 0;
        fmt::print("JoinBolt alone, window {}: {:.2f} M in/s\n", w,
                   RunJoinAlone(a, b, w, rows) / 1e6);
      }
    }
    return 0;
  }
  MeasureWindowMemory(100'000, true);
  MeasureJoinMemory(100'000, false);
  MeasureJoinMemory(100'000, true);
  const std::vector<Row> a = MakeRows(n), b = MakeRows(n);
  bool ok = true;
  fmt::print(
      "{} tuples per stream, {} keys, {} rounds, medians; {} sources; receive buffer {}; "
      "chaining {}\n",
      n, kKeys, repeats, sources == Sources::kPaired ? "paired" : "separate",
      tuning.receive_buffer > 0 ? std::to_string(tuning.receive_buffer) : "default",
      tuning.chaining ? "on" : "off");
  std::vector<double> ceiling;
  for (int round = 0; round < repeats; ++round) ceiling.push_back(RunCeiling(n, tuning, sources));
  if (Median(ceiling) == 0) ok = false;
  fmt::print("runtime ceiling (the same spouts -> IdentityBolt -> NullBolt): {:.2f} M in/s\n",
             Median(ceiling) / 1e6);
  fmt::print("{:>8} {:>14} {:>14} {:>8} {:>10} {:>10} {:>14}\n", "window", "bare M in/s",
             "tempest M in/s", "ratio", "per round", "/ceiling", "rows/window");
  for (uint64_t w : windows) {
    std::vector<double> bare, temp, ratios, alone;
    uint64_t bare_rows = 0, rows = 0, alone_rows = 0;
    for (int round = 0; round < repeats; ++round) {
      const auto start = Clock::now();
      bare_rows = BareJoin(a, b, w);
      bare.push_back(2.0 * static_cast<double>(n) /
                     std::chrono::duration<double>(Clock::now() - start).count());
      alone.push_back(RunJoinAlone(a, b, w, alone_rows));
      // Whole windows only (no end of stream is sent): then it joins exactly the bare join's rows.
      if ((2 * n) % w == 0 && alone_rows != bare_rows) {
        fmt::print(stderr, "window {}: JoinBolt alone joined {} rows, the bare join {}\n", w,
                   alone_rows, bare_rows);
        ok = false;
      }
      const TempestResult r = RunTempest(n, w, parallelism, tuning, sources);
      if (!r.ok) {
        fmt::print(stderr, "window {}: tempest run not verified\n", w);
        ok = false;
      }
      rows = r.rows;
      // Paired sources on one task: its windows are the bare join's, so are its rows.
      if (sources == Sources::kPaired && parallelism == 1 && (2 * n) % w == 0 &&
          rows != bare_rows) {
        fmt::print(stderr, "window {}: tempest joined {} rows, the bare join {}\n", w, rows,
                   bare_rows);
        ok = false;
      }
      temp.push_back(2.0 * static_cast<double>(n) / r.seconds);
      // The machine's speed drifts between rounds: the ratio of a round's two adjacent runs is
      // steadier than the ratio of the medians.
      ratios.push_back(temp.back() / bare.back());
    }
    // Windows are cut by arrival order in Tempest, so its row count is close to, not equal to,
    // the bare join's (which splits the streams evenly); both are reported.
    fmt::print(
        "{:>8} {:>14.2f} {:>14.2f} {:>8.2f} {:>10.2f} {:>10.2f} {:>14.0f}   (rows: bare {}, "
        "tempest "
        "{})\n",
        w, Median(bare) / 1e6, Median(temp) / 1e6, Median(temp) / Median(bare), Median(ratios),
        Median(temp) / Median(ceiling),
        static_cast<double>(bare_rows) / (2.0 * static_cast<double>(n) / w), bare_rows, rows);
    fmt::print(
        "{:>8} JoinBolt alone (one thread, no runtime): {:.2f} M in/s, {:.2f} of the bare join, "
        "{} rows\n",
        w, Median(alone) / 1e6, Median(alone) / Median(bare), alone_rows);
  }
  return ok ? 0 : 1;
}

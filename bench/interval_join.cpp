// IntervalJoinBolt throughput and state size (issue 8): two streams of N rows each, left and
// right, [id, key, ts, payload] as GeneratorSpout emits them (key = id % 1000, ts = id ms,
// payload 16 characters), joined on `key` with right.ts in [left.ts - B, left.ts + B] (inclusive)
// for each bound B, in one process, against a bare single-thread interval join of the same rows
// in the same run.
//
// Disorder: row i with i % 100 == 99 has its ts moved back by 1 + (mt19937_64() % 50) ms (seed 1
// for the left rows, 2 for the right ones; one draw per moved row, in order). Nothing else moves.
//
//   bare:     the rows interleaved l0, r0, l1, r1, ...; per key (dense, 0..999) and side a
//             ts-ordered buffer (vector with a head), per side a ts-ordered queue of what to let
//             out. Each row that is not late (ts < watermark) is stored and probes the other
//             side's buffer of its key for [ts - B, ts + B], building one Values{left.id,
//             right.id} per match (counted and checksummed). The watermark is min(max left ts,
//             max right ts) - lag, recomputed after every row; an element leaves when the
//             watermark is above ts + B. Late rows are dropped and counted.
//   state:    IntervalJoinState alone over the same interleaved rows (each copied into a Tuple,
//             as the runtime hands the bolt one), same watermark rule, a sink that builds the
//             same Values per pair (each id read from the added tuple or the held packed row, as
//             the bolt reads them). Timed without, and once more untimed with, sampling of its
//             peak size (tuples held) and heap (mallinfo2 uordblks + hblkhd delta: large vectors
//             are mmapped and counted only in hblkhd).
//   tempest:  VectorSpout "left", VectorSpout "right" (the same pre-generated rows) ->
//             IntervalJoinBolt (source selector, key `key`, ts `ts`, Between(-B, B), select
//             "left:id, right:id", lag as the bare join, watermark interval 0 (after every
//             tuple) and 1000 ms (the default users get)) -> NullBolt; global groupings; acking
//             off unless --acking, as bench/join.cpp. --chaining sets topology.chaining: the
//             sink then runs on the join's thread. One more untimed run per shape samples the
//             process heap (same mallinfo2 sum, every 2 ms, from another thread) for its peak.
//
// Lag: --lag-ms, default 50 = the largest move back. Then no row is late, whatever the spouts'
// interleaving (a moved row is at most 49 ms below its own side's maximum, and the watermark is
// at least 50 below it), so each pair is found by whichever of its rows arrives second and
// Tempest must produce exactly the bare join's rows: that is part of its check. With a smaller
// lag the moved rows are late by different amounts in each join (Tempest's spouts interleave by
// scheduling, not strictly alternately), so row and dropped counts are close, not equal; both
// are printed.
//
// Rates are input rows per second (2N / elapsed). Each Tempest run is checked: completed, every
// input executed by the join, every row it emitted received by the sink, no errors (with acking:
// every spout tuple acked, none failed), and the rows above when lag >= 50. Exit code 1 if a run
// failed its check.
#include <fmt/format.h>
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/two_stream_bench.h"
#include "bolts/identity_bolt.h"
#include "bolts/join/interval_join_bolt.h"
#include "bolts/join/interval_join_state.h"
#include "bolts/join/join_key.h"
#include "bolts/null_bolt.h"
#include "runtime/local_cluster.h"
#include "topology/spout.h"
#include "topology/topology_builder.h"

namespace {

using tempest::bench::HeapBytes;
using tempest::bench::Median;
using tempest::bench::PrintRuntimeCeilings;
using tempest::bench::Row;
using tempest::bench::Rows;
using tempest::bench::Seconds;
using tempest::bench::VectorSpout;
namespace bolts = tempest::bolts;
namespace runtime = tempest::runtime;
namespace topology = tempest::topology;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kKeys = 1000;
constexpr uint64_t kDisorderEvery = 100;
constexpr int64_t kMaxDisorderMs = 50;
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

Rows MakeRows(uint64_t n, uint64_t seed) {
  Rows rows(n);
  const std::string payload(16, 'x');
  std::mt19937_64 rng(seed);
  for (uint64_t i = 0; i < n; ++i) {
    int64_t ts = static_cast<int64_t>(i);
    if (i % kDisorderEvery == kDisorderEvery - 1) {
      ts -= 1 + static_cast<int64_t>(rng() % kMaxDisorderMs);
    }
    rows[i].values = {static_cast<int64_t>(i), static_cast<int64_t>(i % kKeys), ts, payload};
  }
  return rows;
}

int64_t TsOf(const Row& r) { return r.values[2].AsInt(); }

// What a join pass (bare or state) produced.
struct PassResult {
  double seconds = 0;
  uint64_t rows = 0;
  uint64_t late = 0;
  uint64_t peak_held = 0;      // elements held, both sides
  std::size_t peak_bytes = 0;  // heap delta (state pass with sampling only)
};

// min(max left ts, max right ts) - lag once both sides have delivered a row, else kMin.
class Watermark {
 public:
  explicit Watermark(int64_t lag) : lag_(lag) {}
  void Track(int side, int64_t ts) { max_[side] = std::max(max_[side], ts); }
  int64_t Current() const { return std::min(max_[0], max_[1]) == kMin ? kMin : Compute(); }

 private:
  int64_t Compute() const { return std::min(max_[0], max_[1]) - lag_; }
  int64_t lag_;
  int64_t max_[2] = {kMin, kMin};
};

// The bare join's buffers: a ts-ordered vector whose consumed front is skipped by `head`;
// in-order arrivals are a push_back, the few out-of-order ones an insert near the back.
template <typename T>
struct Fifo {
  std::vector<T> items;
  std::size_t head = 0;

  bool empty() const { return head == items.size(); }
  const T& front() const { return items[head]; }
  void Insert(const T& e) {
    if (empty() || items.back().ts <= e.ts) {
      items.push_back(e);
      return;
    }
    auto at = std::upper_bound(items.begin() + static_cast<std::ptrdiff_t>(head), items.end(), e.ts,
                               [](int64_t ts, const T& x) { return ts < x.ts; });
    items.insert(at, e);
  }
  void PopFront() {
    if (++head == items.size()) {
      items.clear();
      head = 0;
    } else if (head >= 64 && 2 * head >= items.size()) {
      items.erase(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(head));
      head = 0;
    }
  }
};

struct Element {
  int64_t ts = 0;
  uint32_t row = 0;
};
struct Pending {
  int64_t ts = 0;
  uint32_t key = 0;
};

PassResult BareJoin(const Rows& left, const Rows& right, int64_t bound, int64_t lag) {
  const auto start = Clock::now();
  std::vector<Fifo<Element>> buffers[2] = {std::vector<Fifo<Element>>(kKeys),
                                           std::vector<Fifo<Element>>(kKeys)};
  // One side's elements in ts order; as the cleanup offset is the same for all of a side
  // (max(upper, 0) = max(-lower, 0) = B), that is also the order they leave in.
  Fifo<Pending> pending[2];
  const Rows* rows[2] = {&left, &right};
  Watermark wm(lag);
  int64_t watermark = kMin;
  PassResult r;
  uint64_t held = 0;
  int64_t checksum = 0;
  for (std::size_t i = 0; i < left.size(); ++i) {
    for (int side = 0; side < 2; ++side) {
      const Row& row = (*rows[side])[i];
      const int64_t ts = TsOf(row);
      wm.Track(side, ts);
      if (ts < watermark) {
        ++r.late;
      } else {
        const auto key = static_cast<uint32_t>(row.values[1].AsInt());
        const Fifo<Element>& other = buffers[1 - side][key];
        const Rows& theirs = *rows[1 - side];
        // The interval is symmetric, so both sides probe [ts - B, ts + B].
        auto it = std::lower_bound(other.items.begin() + static_cast<std::ptrdiff_t>(other.head),
                                   other.items.end(), ts - bound,
                                   [](const Element& e, int64_t v) { return e.ts < v; });
        for (; it != other.items.end() && it->ts <= ts + bound; ++it) {
          const Row& mate = theirs[it->row];
          topology::Values out = side == 0 ? topology::Values{row.values[0], mate.values[0]}
                                           : topology::Values{mate.values[0], row.values[0]};
          checksum += out[0].AsInt() ^ out[1].AsInt();
          ++r.rows;
        }
        buffers[side][key].Insert({ts, static_cast<uint32_t>(i)});
        pending[side].Insert({ts, key});
        r.peak_held = std::max(r.peak_held, ++held);
      }
      const int64_t next = wm.Current();
      if (next <= watermark) continue;
      watermark = next;
      for (int s = 0; s < 2; ++s) {
        while (!pending[s].empty() && watermark > pending[s].front().ts + bound) {
          buffers[s][pending[s].front().key].PopFront();
          pending[s].PopFront();
          --held;
        }
      }
    }
  }
  r.seconds = Seconds(start);
  if (checksum == -1) fmt::print("");  // keep the rows observable
  return r;
}

// Builds the row IntervalJoinBolt would select for each pair (left.id, right.id, read from the
// added tuple or the held packed row as the bolt reads them), and only counts it. Like the bolt,
// it reads only the fields it selects (`id`), so only those are held.
class CountingSink final : public bolts::IntervalJoinRowSink {
 public:
  std::vector<uint8_t> FieldsRead(const topology::StreamSchema&) const override {
    return {1, 0, 0, 0};
  }
  void JoinedRows(const bolts::IntervalJoinRow& left, const bolts::IntervalJoinRow& right,
                  int64_t) override {
    topology::Values out;
    left.AppendField(0, out);
    right.AppendField(0, out);
    checksum_ += out[0].AsInt() ^ out[1].AsInt();
    ++rows_;
  }
  void LeftRow(bolts::JoinSide, const bolts::IntervalJoinRow&, int64_t, bool) override {}
  uint64_t rows() const { return rows_; }
  int64_t checksum() const { return checksum_; }

 private:
  uint64_t rows_ = 0;
  int64_t checksum_ = 0;
};

// IntervalJoinState over the bare join's arrival order and watermark rule; with `sample`, its
// size after every row and the heap every 1024 rows (mallinfo2 walks the free lists: too slow
// for every row, and kept out of the timed pass).
PassResult StatePass(const Rows& left, const Rows& right, int64_t bound, int64_t lag, bool sample) {
  auto schema = std::make_shared<topology::StreamSchema>();
  schema->fields =
      std::make_shared<const topology::Fields>(topology::Fields{"id", "key", "ts", "payload"});
  const std::size_t before = sample ? HeapBytes() : 0;
  const auto start = Clock::now();
  PassResult r;
  CountingSink sink;
  {
    bolts::IntervalJoinState state({-bound, bound}, sink);
    const Rows* rows[2] = {&left, &right};
    Watermark wm(lag);
    bolts::KeyRef key;
    for (std::size_t i = 0; i < left.size(); ++i) {
      for (int side = 0; side < 2; ++side) {
        const Row& row = (*rows[side])[i];
        const int64_t ts = TsOf(row);
        wm.Track(side, ts);
        if (state.IsLate(ts)) {
          ++r.late;
        } else {
          key.assign(1, &row.values[1]);
          state.Add(side == 0 ? bolts::JoinSide::kLeft : bolts::JoinSide::kRight, key,
                    bolts::HashKey(key), ts, topology::Tuple(schema.get(), 1, row.values));
        }
        if (const int64_t next = wm.Current(); next != kMin) state.Advance(next);
        if (!sample) continue;
        r.peak_held = std::max<uint64_t>(
            r.peak_held, state.size(bolts::JoinSide::kLeft) + state.size(bolts::JoinSide::kRight));
        if ((i & 1023) == 0) r.peak_bytes = std::max(r.peak_bytes, HeapBytes() - before);
      }
    }
    state.Drain();
  }
  r.seconds = Seconds(start);
  r.rows = sink.rows();
  if (sink.checksum() == -1) fmt::print("");
  return r;
}

struct Shape {
  int64_t bound = 0;
  int64_t lag = 0;
  int64_t interval = 0;  // watermark_interval_ms
  bool acking = false;
  bool chaining = false;  // topology.chaining: the sink on the join's thread
};

struct TempestResult {
  double seconds = 0;
  uint64_t rows = 0;
  uint64_t dropped = 0;
  std::size_t peak_bytes = 0;  // with sampling only
  bool ok = false;
};

TempestResult RunTempest(const std::shared_ptr<const Rows>& left,
                         const std::shared_ptr<const Rows>& right, const Shape& shape,
                         uint64_t expected_rows, bool sample) {
  const uint64_t n = left->size();
  topology::TopologyBuilder b("bench-interval-join");
  if (!shape.acking) b.Config().acker_executors = 0;
  b.Config().chaining = shape.chaining;
  b.SetSpout("left", [left] { return std::make_unique<VectorSpout>(left); });
  b.SetSpout("right", [right] { return std::make_unique<VectorSpout>(right); });
  bolts::IntervalJoinBoltBuilder join(bolts::JoinSelector::kSource, {"left", {"key"}, "ts"},
                                      {"right", {"key"}, "ts"});
  join.Between(-shape.bound, shape.bound)
      .Select("left:id, right:id")
      .WithLag(shape.lag)
      .WithWatermarkInterval(shape.interval);
  b.SetBolt("join", join.Build()).GlobalGrouping("left").GlobalGrouping("right");
  b.SetBolt("sink", [] { return std::make_unique<bolts::NullBolt>(); }).GlobalGrouping("join");

  std::atomic<bool> stop{false};
  std::size_t peak = 0;
  std::thread sampler;
  if (sample) {
    const std::size_t before = HeapBytes();
    sampler = std::thread([&stop, &peak, before] {
      while (!stop.load(std::memory_order_relaxed)) {
        const std::size_t now = HeapBytes();
        if (now > before) peak = std::max(peak, now - before);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
  }
  const auto start = Clock::now();
  const runtime::RunSummary summary = runtime::LocalCluster(b.Build()).Run();
  TempestResult r;
  r.seconds = Seconds(start);
  if (sample) {
    stop = true;
    sampler.join();
    r.peak_bytes = peak;
  }
  const runtime::ComponentSummary* sink = summary.Find("sink");
  const runtime::ComponentSummary* joined = summary.Find("join");
  r.rows = sink != nullptr ? sink->executed : 0;
  r.dropped = joined != nullptr ? joined->dropped : 0;
  uint64_t errors = 0;
  for (const runtime::ComponentSummary& c : summary.components) errors += c.errors;
  r.ok = summary.completed && joined != nullptr && joined->executed == 2 * n &&
         joined->emitted == r.rows && errors == 0;
  if (shape.acking) {
    for (const char* spout : {"left", "right"}) {
      const runtime::ComponentSummary* s = summary.Find(spout);
      r.ok = r.ok && s != nullptr && s->acked == n && s->failed == 0;
    }
  }
  // No row can be late (see the header), so the pairs are exactly the bare join's.
  if (shape.lag >= kMaxDisorderMs) r.ok = r.ok && r.dropped == 0 && r.rows == expected_rows;
  if (!r.ok) {
    fmt::print(stderr,
               "tempest run not verified: completed {}, join executed {} of {}, emitted {}, sink "
               "executed {}, errors {}, dropped {}, rows {} (expected {}){}\n",
               summary.completed, joined != nullptr ? joined->executed : 0, 2 * n,
               joined != nullptr ? joined->emitted : 0, r.rows, errors, r.dropped, r.rows,
               expected_rows, summary.error.empty() ? "" : ", error: " + summary.error);
  }
  return r;
}

std::string ShapeName(const Shape& s) {
  return fmt::format("±{} ms, wm {} ms{}{}", s.bound, s.interval, s.acking ? ", acking" : "",
                     s.chaining ? ", chained" : "");
}

// The throughput table's header.
void PrintHeader(uint64_t n, int64_t lag, int repeats) {
  fmt::print(
      "{} rows per stream, {} keys, every {}th row up to {} ms early, lag {} ms, {} rounds, "
      "medians\n",
      n, kKeys, kDisorderEvery, kMaxDisorderMs, lag, repeats);
  fmt::print("{:<26} {:>8} {:>8} {:>8} {:>6} {:>10} {:>10} {:>13} {:>10}\n", "shape", "bare",
             "state", "tempest", "ratio", "rows bare", "rows temp", "late bare/tmp", "heap peak");
  fmt::print("{:<26} {:>8} {:>8} {:>8} {:>6}\n", "", "M in/s", "M in/s", "M in/s", "t/bare");
}

double Mb(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("IntervalJoinBolt vs a bare interval join of the same rows, same run");
  uint64_t n = 1'000'000;
  int repeats = 3;
  int64_t lag = kMaxDisorderMs;
  std::vector<int64_t> bounds = {500, 5000};
  std::vector<int64_t> intervals = {0, 1000};
  bool acking = false;
  app.add_option("--tuples", n, "Rows per stream");
  app.add_option("--repeats", repeats, "Rounds");
  app.add_option("--bounds", bounds, "Interval bounds B in ms (the join is [-B, B])");
  app.add_option("--lag-ms", lag, "Watermark lag of both joins (>= 50: no row is late)");
  app.add_option("--watermark-intervals", intervals, "IntervalJoinBolt watermark_interval_ms");
  app.add_flag("--acking", acking, "Also run every shape with acking on (default config)");
  bool chaining = false;
  app.add_flag("--chaining", chaining, "topology.chaining: the sink runs on the join's thread");
  bool state_only = false, ceilings_only = false, tempest_only = false, memory_only = false;
  app.add_flag("--tempest-only", tempest_only, "Only the IntervalJoinBolt runs (for profiling)");
  app.add_flag("--state-only", state_only, "Only the IntervalJoinState pass (for profiling)");
  app.add_flag("--ceilings-only", ceilings_only, "Only the runtime ceilings (for profiling)");
  app.add_flag("--memory-only", memory_only, "Only the peak state table (bytes per held row)");
  CLI11_PARSE(app, argc, argv);

  const auto left = std::make_shared<const Rows>(MakeRows(n, 1));
  const auto right = std::make_shared<const Rows>(MakeRows(n, 2));
  if (state_only) {
    for (const int64_t bound : bounds) {
      for (int round = 0; round < repeats; ++round) {
        const PassResult r = StatePass(*left, *right, bound, lag, false);
        fmt::print("state ±{} ms: {:.2f} M in/s\n", bound,
                   2.0 * static_cast<double>(n) / r.seconds / 1e6);
      }
    }
    return 0;
  }
  if (tempest_only) {
    for (const int64_t bound : bounds) {
      const PassResult bare = BareJoin(*left, *right, bound, lag);
      for (int round = 0; round < repeats; ++round) {
        const TempestResult r = RunTempest(
            left, right, {bound, lag, intervals.front(), acking, chaining}, bare.rows, false);
        fmt::print("tempest ±{} ms: {:.2f} M in/s{}\n", bound,
                   2.0 * static_cast<double>(n) / r.seconds / 1e6, r.ok ? "" : " (not verified)");
      }
    }
    return 0;
  }
  bool ok = true;
  if (!memory_only) {
    PrintHeader(n, lag, repeats);
    PrintRuntimeCeilings(left, right, repeats);
    if (ceilings_only) return 0;
  }
  struct Peak {
    int64_t bound = 0;
    PassResult bare, state;
  };
  std::vector<Peak> peaks;
  for (const int64_t bound : bounds) {
    if (memory_only) {
      peaks.push_back(
          {bound, BareJoin(*left, *right, bound, lag), StatePass(*left, *right, bound, lag, true)});
      continue;
    }
    std::vector<Shape> shapes;
    for (const int64_t interval : intervals) {
      shapes.push_back({bound, lag, interval, false, chaining});
      if (acking) shapes.push_back({bound, lag, interval, true, chaining});
    }
    std::vector<double> bare, state;
    std::vector<std::vector<double>> temp(shapes.size());
    std::vector<TempestResult> last(shapes.size());
    PassResult bare_last;
    for (int round = 0; round < repeats; ++round) {
      bare_last = BareJoin(*left, *right, bound, lag);
      bare.push_back(2.0 * static_cast<double>(n) / bare_last.seconds);
      state.push_back(2.0 * static_cast<double>(n) /
                      StatePass(*left, *right, bound, lag, false).seconds);
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        last[s] = RunTempest(left, right, shapes[s], bare_last.rows, false);
        ok = ok && last[s].ok;
        temp[s].push_back(2.0 * static_cast<double>(n) / last[s].seconds);
      }
    }
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      // The heap sampler reads every arena's free lists under their locks: its own, untimed run.
      const TempestResult mem = RunTempest(left, right, shapes[s], bare_last.rows, true);
      ok = ok && mem.ok;
      fmt::print(
          "{:<26} {:>8.2f} {:>8.2f} {:>8.2f} {:>6.2f} {:>10} {:>10} {:>6}/{:<6} {:>7.0f} MB\n",
          ShapeName(shapes[s]), Median(bare) / 1e6, Median(state) / 1e6, Median(temp[s]) / 1e6,
          Median(temp[s]) / Median(bare), bare_last.rows, last[s].rows, bare_last.late,
          last[s].dropped, Mb(mem.peak_bytes));
    }
    peaks.push_back({bound, bare_last, StatePass(*left, *right, bound, lag, true)});
  }

  // At 1 row per ms per side, an element stays while the watermark (lag behind the slower side)
  // has not passed ts + B: about B + lag + 1 rows per side.
  fmt::print("\npeak state, same arrival order and watermark as the bare join:\n");
  fmt::print("{:>8} {:>14} {:>14} {:>14} {:>14} {:>14}\n", "bound", "expected held", "bare held",
             "state held", "state heap MB", "bytes/held");
  for (const Peak& p : peaks) {
    fmt::print("{:>8} {:>14} {:>14} {:>14} {:>14.2f} {:>14.0f}\n", p.bound, 2 * (p.bound + lag + 1),
               p.bare.peak_held, p.state.peak_held, Mb(p.state.peak_bytes),
               static_cast<double>(p.state.peak_bytes) / static_cast<double>(p.state.peak_held));
  }
  return ok ? 0 : 1;
}

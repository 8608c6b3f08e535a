// SymmetricHashJoinBolt throughput and state size in changelog mode (issue 9): two streams of N
// rows each, left and right, [id, key, ts, payload] as GeneratorSpout emits them (key = id % K,
// ts = id, payload 16 characters), all +I (no `_op` field), joined on `key`, inner and left, in
// one process, against a bare single-thread symmetric hash join of the same rows in the same run.
// With the defaults (N = 1M, K = 100k) every key gets N / K = 10 rows per side, so the inner join
// emits K * 10 * 10 = 10M rows (5 per input row) and the left join 10M + 2 * P, P the left rows
// that arrive before any right row of their key (the rows are emitted padded, then retracted).
//
//   bare:     the rows interleaved l0, r0, l1, r1, ...; per key a std::unordered_map<int64_t>
//             entry holding per side a vector of the rows (copies of their Values: the join keeps
//             its rows). Each row probes the other side's vector and builds one Values{left.id,
//             right.id} per match (tallied: counted per kind and checksummed), then is stored.
//             Its heap is measured as the state's (below), for comparison.
//             For the left join it also does the padding: a left row without a right row of its
//             key emits +I {id, null}, and the first right row of a key emits -D {id, null} for
//             each of the key's left rows before its joined rows (Flink's order).
//   state:    ChangelogJoinState alone (no TTL unless --ttl-ms) over the same interleaved rows,
//             each copied into a Tuple as the runtime hands the bolt one, a sink that builds and
//             tallies the same Values. Its heap is mallinfo2 uordblks + hblkhd (large blocks are
//             mmapped and counted only in hblkhd) after the last row minus before the first:
//             every row is still held then (all +I, distinct ids), so that is also its peak.
//   tempest:  VectorSpout "left", VectorSpout "right" (the same pre-generated rows) ->
//             SymmetricHashJoinBolt (source selector, key `key`, mode changelog, select
//             "left:id, right:id") -> a counting sink; global groupings; acking off. The sink
//             does what NullBolt does plus a tally of the rows (kind, padded or not, checksum of
//             the joined pairs), so the output can be checked: the spouts interleave by
//             scheduling, not strictly, so a left join's padded rows depend on the run.
//
// Raw row size: the sum of the fields' payloads, 8 bytes per int64 and the string's 16
// characters, 40 bytes (the figure BENCHMARKS.md uses for these rows elsewhere; msgpack encodes
// them in about 33). "Bytes per stored row" is the state's heap delta over the rows it holds:
// everything it allocates (rows, keys, table, per-key containers, allocator overhead).
//
// Rates are input rows per second (2N / elapsed; the state's destruction is not timed, nor the
// bare join's). Checks, any failure exiting with code 1: the state's tally equals the bare join's
// exactly (rows per kind and checksum) and it holds 2N rows and K keys; each Tempest run
// completed, the join executed 2N inputs, the sink received all it emitted, no errors, and its
// joined rows (count and checksum) equal the bare join's exactly; its padded +I rows equal its
// -D rows (every key has right rows), and for the inner join there are none.
#include <fmt/format.h>
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench/two_stream_bench.h"
#include "bolts/identity_bolt.h"
#include "bolts/join/changelog_join_state.h"
#include "bolts/join/join_key.h"
#include "bolts/join/symmetric_hash_join_bolt.h"
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
using bolts::RowKind;
using Clock = std::chrono::steady_clock;

constexpr double kRawRowBytes = 8 + 8 + 8 + 16;

Rows MakeRows(uint64_t n, uint64_t keys) {
  Rows rows(n);
  const std::string payload(16, 'x');
  for (uint64_t i = 0; i < n; ++i) {
    const auto id = static_cast<int64_t>(i);
    rows[i].values = {id, static_cast<int64_t>(i % keys), id, payload};
  }
  return rows;
}

// What a join produced: rows per kind, padded ones apart, and a checksum of the joined pairs.
struct Tally {
  uint64_t joined = 0;
  uint64_t padded_insert = 0;
  uint64_t padded_delete = 0;
  uint64_t other = 0;  // any other kind or shape: never expected here
  int64_t checksum = 0;

  void Add(RowKind kind, const topology::Values& out) {
    const int64_t* l = out[0].IfInt();
    const int64_t* r = out[1].IfInt();
    if (l != nullptr && r != nullptr && kind == RowKind::kInsert) {
      ++joined;
      checksum += (*l * 1'000'003) ^ *r;
    } else if (l != nullptr && r == nullptr && kind == RowKind::kInsert) {
      ++padded_insert;
    } else if (l != nullptr && r == nullptr && kind == RowKind::kDelete) {
      ++padded_delete;
    } else {
      ++other;
    }
  }
  uint64_t rows() const { return joined + padded_insert + padded_delete + other; }
  bool operator==(const Tally&) const = default;
};

struct PassResult {
  double seconds = 0;
  Tally tally;
  std::size_t held = 0;   // rows the state holds at the end (state pass)
  std::size_t keys = 0;   // keys it holds
  std::size_t bytes = 0;  // its heap delta
};

// A stored row: its values, nothrow-movable (as Tuple makes them) so that a vector growing moves
// its rows instead of copying them.
struct BareRow {
  explicit BareRow(const topology::Values& v) : values(v) {}
  BareRow(BareRow&&) noexcept = default;
  BareRow& operator=(BareRow&&) noexcept = default;
  topology::Values values;
};

// Per key, per side, the rows (copies).
struct BareKey {
  std::vector<BareRow> rows[2];
};

PassResult BareJoin(const Rows& left, const Rows& right, bool left_outer) {
  PassResult r;
  const std::size_t before = HeapBytes();
  std::unordered_map<int64_t, BareKey> keys;
  const Rows* rows[2] = {&left, &right};
  const auto start = Clock::now();
  for (std::size_t i = 0; i < left.size(); ++i) {
    for (int side = 0; side < 2; ++side) {
      const topology::Values& v = (*rows[side])[i].values;
      BareKey& k = keys[v[1].AsInt()];
      const std::vector<BareRow>& other = k.rows[1 - side];
      if (side == 0) {
        if (other.empty() && left_outer) r.tally.Add(RowKind::kInsert, {v[0], topology::Value()});
        for (const BareRow& o : other) r.tally.Add(RowKind::kInsert, {v[0], o.values[0]});
      } else {
        // The key's left rows are unmatched until its first right row: retract their padding.
        if (left_outer && k.rows[1].empty()) {
          for (const BareRow& o : other) {
            r.tally.Add(RowKind::kDelete, {o.values[0], topology::Value()});
          }
        }
        for (const BareRow& o : other) r.tally.Add(RowKind::kInsert, {o.values[0], v[0]});
      }
      k.rows[side].emplace_back(v);
    }
  }
  r.seconds = Seconds(start);
  r.bytes = HeapBytes() - before;
  r.held = 2 * left.size();
  r.keys = keys.size();
  return r;
}

// Builds the row the bolt would select ("left:id, right:id") for each output, and tallies it.
class TallySink final : public bolts::ChangelogJoinSink {
 public:
  void Emit(RowKind kind, const topology::Tuple* left, const topology::Tuple* right) override {
    topology::Values out{left != nullptr ? left->GetValue(0) : topology::Value(),
                         right != nullptr ? right->GetValue(0) : topology::Value()};
    tally.Add(kind, out);
  }
  Tally tally;
};

PassResult StatePass(const Rows& left, const Rows& right, bool left_outer, int64_t ttl_ms) {
  topology::StreamSchema schemas[2];
  for (topology::StreamSchema& s : schemas) {
    s.fields =
        std::make_shared<const topology::Fields>(topology::Fields{"id", "key", "ts", "payload"});
  }
  PassResult r;
  TallySink sink;
  const std::size_t before = HeapBytes();
  auto state = std::make_unique<bolts::ChangelogJoinState>(
      bolts::ChangelogSide{left_outer, false, ttl_ms, -1},
      bolts::ChangelogSide{false, false, ttl_ms, -1}, nullptr, sink);
  const Rows* rows[2] = {&left, &right};
  bolts::KeyRef key;
  const auto start = Clock::now();
  for (std::size_t i = 0; i < left.size(); ++i) {
    for (int side = 0; side < 2; ++side) {
      const topology::Tuple t(&schemas[side], 1, (*rows[side])[i].values);
      key.assign(1, &t.GetValue(1));
      // Processing time is read only with a TTL, as the bolt does.
      const int64_t now = ttl_ms > 0 ? std::chrono::duration_cast<std::chrono::milliseconds>(
                                           Clock::now().time_since_epoch())
                                           .count()
                                     : 0;
      state->Process(side == 0 ? bolts::JoinSide::kLeft : bolts::JoinSide::kRight, RowKind::kInsert,
                     key, t, now);
    }
  }
  r.seconds = Seconds(start);
  r.bytes = HeapBytes() - before;
  r.held = state->rows(bolts::JoinSide::kLeft) + state->rows(bolts::JoinSide::kRight);
  r.keys = state->keys();
  r.tally = sink.tally;
  return r;
}

// NullBolt plus a tally of the join's output [left:id, right:id, _op]. One task: the factory's
// tally is read after the run (the run joins the task threads).
class TallyBolt final : public topology::Bolt {
 public:
  explicit TallyBolt(std::shared_ptr<Tally> tally) : tally_(std::move(tally)) {}
  void Prepare(const topology::TopologyContext&, topology::OutputCollector& collector) override {
    out_ = &collector;
  }
  void Execute(const topology::Tuple& input) override {
    const std::string& op = input.GetValue(2).AsString();
    const RowKind kind = bolts::ParseRowKind(op).value_or(RowKind::kUpdateBefore);
    tally_->Add(kind, input.GetValues());
    out_->Ack(input);
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  std::shared_ptr<Tally> tally_;
  topology::OutputCollector* out_ = nullptr;
};

struct TempestResult {
  double seconds = 0;
  Tally tally;
  bool ok = false;
};

TempestResult RunTempest(const std::shared_ptr<const Rows>& left,
                         const std::shared_ptr<const Rows>& right, bool left_outer, int64_t ttl_ms,
                         const Tally& expected) {
  const uint64_t n = left->size();
  topology::TopologyBuilder b("bench-symmetric-hash-join");
  b.Config().acker_executors = 0;
  b.SetSpout("left", [left] { return std::make_unique<VectorSpout>(left); });
  b.SetSpout("right", [right] { return std::make_unique<VectorSpout>(right); });
  bolts::SymmetricHashJoinBoltConfig c;
  c.left = {"left", {"key"}};
  c.right = {"right", {"key"}};
  c.type = left_outer ? bolts::SymmetricJoinType::kLeft : bolts::SymmetricJoinType::kInner;
  c.mode = bolts::SymmetricJoinMode::kChangelog;
  c.select = "left:id, right:id";
  c.state_ttl_ms = ttl_ms;
  b.SetBolt("join", [c] { return std::make_unique<bolts::SymmetricHashJoinBolt>(c); })
      .GlobalGrouping("left")
      .GlobalGrouping("right");
  auto tally = std::make_shared<Tally>();
  b.SetBolt("sink", [tally] { return std::make_unique<TallyBolt>(tally); }).GlobalGrouping("join");

  const auto start = Clock::now();
  const runtime::RunSummary summary = runtime::LocalCluster(b.Build()).Run();
  TempestResult r;
  r.seconds = Seconds(start);
  r.tally = *tally;
  const runtime::ComponentSummary* sink = summary.Find("sink");
  const runtime::ComponentSummary* joined = summary.Find("join");
  uint64_t errors = 0;
  for (const runtime::ComponentSummary& s : summary.components) errors += s.errors;
  const Tally& t = r.tally;
  r.ok = summary.completed && joined != nullptr && sink != nullptr && joined->executed == 2 * n &&
         joined->emitted == sink->executed && sink->executed == t.rows() && errors == 0 &&
         t.joined == expected.joined && t.checksum == expected.checksum && t.other == 0 &&
         t.padded_insert == t.padded_delete && (left_outer || t.padded_insert == 0);
  if (!r.ok) {
    fmt::print(stderr,
               "tempest run not verified: completed {}, join executed {} of {}, emitted {}, sink "
               "executed {}, errors {}, joined {} (expected {}), checksum {} (expected {}), "
               "padded +I {} / -D {}, other {}{}\n",
               summary.completed, joined != nullptr ? joined->executed : 0, 2 * n,
               joined != nullptr ? joined->emitted : 0, sink != nullptr ? sink->executed : 0,
               errors, t.joined, expected.joined, t.checksum, expected.checksum, t.padded_insert,
               t.padded_delete, t.other, summary.error.empty() ? "" : ", error: " + summary.error);
  }
  return r;
}

bool StateOk(const PassResult& state, const PassResult& bare, uint64_t n) {
  const bool ok = state.tally == bare.tally && state.held == 2 * n && state.keys == bare.keys;
  if (!ok) {
    fmt::print(stderr,
               "state pass not verified: joined {} (bare {}), padded +I {} ({}), -D {} ({}), "
               "other {}, checksum {} ({}), held {} of {}, keys {} ({})\n",
               state.tally.joined, bare.tally.joined, state.tally.padded_insert,
               bare.tally.padded_insert, state.tally.padded_delete, bare.tally.padded_delete,
               state.tally.other, state.tally.checksum, bare.tally.checksum, state.held, 2 * n,
               state.keys, bare.keys);
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("SymmetricHashJoinBolt (changelog) vs a bare symmetric hash join, same run");
  uint64_t n = 1'000'000;
  uint64_t keys = 100'000;
  int repeats = 3;
  int64_t ttl_ms = 0;
  std::vector<std::string> types = {"inner", "left"};
  bool state_only = false, tempest_only = false, no_ceilings = false;
  app.add_option("--tuples", n, "Rows per stream");
  app.add_option("--keys", keys, "Distinct keys (key = id % keys)");
  app.add_option("--repeats", repeats, "Rounds");
  app.add_option("--types", types, "Join types: inner, left")
      ->check(CLI::IsMember({"inner", "left"}));
  app.add_option("--ttl-ms", ttl_ms,
                 "state_ttl_ms of the state and the bolt (it must outlast the run: the checks "
                 "expect nothing to expire)");
  app.add_flag("--state-only", state_only, "Only the bare and state passes (for profiling)");
  app.add_flag("--tempest-only", tempest_only, "Only the bolt runs (for profiling)");
  app.add_flag("--no-ceilings", no_ceilings, "Skip the runtime ceilings");
  CLI11_PARSE(app, argc, argv);
  if (keys == 0 || n == 0) {
    fmt::print(stderr, "--tuples and --keys must be positive\n");
    return 2;
  }

  const auto left = std::make_shared<const Rows>(MakeRows(n, keys));
  const auto right = std::make_shared<const Rows>(MakeRows(n, keys));
  bool ok = true;
  fmt::print("{} rows per stream, {} keys ({} rows per key and side), ttl {} ms, {} rounds\n", n,
             keys, n / keys, ttl_ms, repeats);
  if (!no_ceilings && !state_only && !tempest_only) PrintRuntimeCeilings(left, right, repeats);
  for (const std::string& type : types) {
    const bool left_outer = type == "left";
    std::vector<double> bare, state, temp, state_ratio, temp_ratio;
    PassResult bare_last, state_last;
    TempestResult temp_last;
    for (int round = 0; round < repeats; ++round) {
      bare_last = BareJoin(*left, *right, left_outer);
      const double b = 2.0 * static_cast<double>(n) / bare_last.seconds;
      bare.push_back(b);
      if (!tempest_only) {
        state_last = StatePass(*left, *right, left_outer, ttl_ms);
        ok = StateOk(state_last, bare_last, n) && ok;
        state.push_back(2.0 * static_cast<double>(n) / state_last.seconds);
        state_ratio.push_back(state.back() / b);
      }
      if (!state_only) {
        temp_last = RunTempest(left, right, left_outer, ttl_ms, bare_last.tally);
        ok = temp_last.ok && ok;
        temp.push_back(2.0 * static_cast<double>(n) / temp_last.seconds);
        temp_ratio.push_back(temp.back() / b);
      }
      fmt::print(
          "  {} round {}: bare {:.2f}, state {:.2f} ({:.2f}), tempest {:.2f} ({:.2f}) M in/s\n",
          type, round + 1, b / 1e6, state.empty() ? 0.0 : state.back() / 1e6,
          state_ratio.empty() ? 0.0 : state_ratio.back(), temp.empty() ? 0.0 : temp.back() / 1e6,
          temp_ratio.empty() ? 0.0 : temp_ratio.back());
    }
    fmt::print(
        "{}: bare {:.2f} M in/s, state {:.2f} (state/bare {:.2f}, per round {:.2f}), tempest "
        "{:.2f} (tempest/bare {:.2f}, per round {:.2f}); medians\n",
        type, Median(bare) / 1e6, Median(state) / 1e6, Median(state) / Median(bare),
        Median(state_ratio), Median(temp) / 1e6, Median(temp) / Median(bare), Median(temp_ratio));
    const Tally& bt = bare_last.tally;
    fmt::print("  output rows: bare {} (joined {}, padded +I {}, -D {})", bt.rows(), bt.joined,
               bt.padded_insert, bt.padded_delete);
    if (!tempest_only) fmt::print("; state {}", state_last.tally.rows());
    if (!state_only) {
      fmt::print("; tempest {} (joined {}, padded +I {}, -D {})", temp_last.tally.rows(),
                 temp_last.tally.joined, temp_last.tally.padded_insert,
                 temp_last.tally.padded_delete);
    }
    fmt::print("\n");
    for (const PassResult* p : {&bare_last, &state_last}) {
      if (p == &state_last && tempest_only) continue;
      const double per_row = static_cast<double>(p->bytes) / static_cast<double>(p->held);
      fmt::print(
          "  {}: {} rows, {} keys held, heap {:.1f} MB, {:.0f} B per stored row = {:.2f} x raw "
          "({} B)\n",
          p == &bare_last ? "bare" : "state", p->held, p->keys,
          static_cast<double>(p->bytes) / 1048576.0, per_row, per_row / kRawRowBytes, kRawRowBytes);
    }
  }
  if (!ok) fmt::print(stderr, "some runs failed their checks\n");
  return ok ? 0 : 1;
}

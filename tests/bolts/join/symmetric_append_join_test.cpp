// SymmetricHashJoinBolt in append mode, through a fake collector and an injected clock.
//
// Spark's StreamingJoinSuite cases (docs/notes/symmetric-hash-join-reference.md, B.5) are run
// batch by batch: a batch's rows are sent, then a tick recomputes the watermark (as Spark does
// between batches) and lets out what it evicts; the rows a batch emits are compared as a set, as
// CheckNewAnswer does. Times are Spark's seconds in milliseconds. Spark drops rows at or below
// its watermark wm, Tempest rows strictly below W, so lag_ms is Spark's delay minus 1 ms: then
// W = wm + 1 and the same rows are late. The two cases whose watermark is not one lag behind both
// inputs (a delay per side; a self-join whose right side sees only some rows) run at the state
// with Spark's watermarks given.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <optional>

#include "../../support/builtin_test_support.h"
#include "../../support/temp_dir.h"
#include "bolts/expression/join_condition.h"
#include "bolts/join/interval_join_state.h"
#include "bolts/join/join_key.h"
#include "bolts/join/symmetric_hash_join_bolt.h"

namespace tempest::bolts {
namespace {

using testing::FakeBoltCollector;
using topology::Fields;
using topology::Tuple;
using topology::Value;
using topology::Values;
using Rows = std::vector<std::string>;

const Value kNull;

// Streams "L" [key, t, lv, wend] and "R" [key, t, rv, wend] of component "src" (wend: the end of
// the 10 s tumbling window t is in, for Spark's windowed cases).
class Harness {
 public:
  // `op`: both streams also carry an `_op` field.
  explicit Harness(bool op = false) {
    spec_ = std::make_shared<topology::TopologySpec>();
    topology::ComponentSpec src;
    src.id = "src";
    src.kind = topology::ComponentKind::kSpout;
    topology::ComponentSpec bolt;
    bolt.id = "join";
    std::vector<std::pair<std::string, Fields>> streams = {{"L", Fields{"key", "t", "lv", "wend"}},
                                                           {"R", Fields{"key", "t", "rv", "wend"}}};
    if (op) {
      streams[0].second = Fields{"key", "t", "lv", "wend", "_op"};
      streams[1].second = Fields{"key", "t", "rv", "wend", "_op"};
    }
    for (const auto& [name, fields] : streams) {
      auto schema = std::make_shared<topology::StreamSchema>();
      schema->component = "src";
      schema->stream = name;
      schema->fields = std::make_shared<const Fields>(fields);
      src.streams.push_back(schema);
      schemas_[name] = schema.get();
      topology::GroupingSpec g;
      g.type = topology::GroupingType::kGlobal;
      bolt.inputs.push_back({topology::GlobalStreamId{"src", name}, g});
    }
    spec_->components.push_back(src);
    spec_->components.push_back(bolt);
  }

  void Start(SymmetricHashJoinBoltConfig c) {
    bolt_ = std::make_unique<SymmetricHashJoinBolt>(std::move(c), [this] { return now_; });
    auto layout = std::make_shared<const topology::TaskLayout>(*spec_);
    context_ =
        std::make_unique<topology::TopologyContext>(spec_, layout, layout->TasksOf("join").front());
    bolt_->Prepare(*context_, out);
  }

  // Sends [key, t s, value] rows of L or R (value: Spark's 2·key / 3·key unless given).
  void Send(const std::string& stream, int64_t key, int64_t seconds, Value value = Value()) {
    if (value.IsNull()) value = Value(stream == "L" ? 2 * key : 3 * key);
    const int64_t t = seconds * 1000;
    const int64_t wend = (seconds / 10 + 1) * 10'000;
    sent_.push_back(Tuple(schemas_.at(stream), 1, Values{key, t, std::move(value), wend}));
    bolt_->Execute(sent_.back());
  }
  void SendRaw(const std::string& stream, Values values) {
    sent_.push_back(Tuple(schemas_.at(stream), 1, std::move(values)));
    if (tracked) {
      tempest::topology::TupleAccess::MutableAck(sent_.back()).anchors.push_back({++root_, 1});
    }
    bolt_->Execute(sent_.back());
  }
  // The rows as one batch through the batch path (tracked as SendRaw tracks them).
  void SendBatch(const std::vector<std::pair<std::string, Values>>& rows) {
    topology::RowBatch batch;
    for (const auto& [stream, values] : rows) {
      const topology::AckMeta::Anchor anchor{++root_, 1};
      batch.Append(schemas_.at(stream), values,
                   tracked ? std::span<const topology::AckMeta::Anchor>(&anchor, 1)
                           : std::span<const topology::AckMeta::Anchor>());
    }
    testing::FakeBatchCollector collector(*bolt_, out);
    bolt_->ExecuteBatch(batch, collector);
  }
  // The rows emitted since the last call, after a tick that recomputes the watermark.
  Rows Batch() {
    now_ += 1000;
    bolt_->OnTick();
    return Take();
  }
  Rows End() {
    bolt_->OnEndOfStream();
    return Take();
  }
  Rows Take() {
    std::vector<std::string> rows;
    for (std::size_t i = taken_; i < out.emitted.size(); ++i) {
      std::string line;
      for (const Value& v : out.emitted[i].values) line += (line.empty() ? "" : ",") + v.ToString();
      rows.push_back(line);
    }
    taken_ = out.emitted.size();
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  FakeBoltCollector out;
  bool tracked = false;  // inputs carry an ack anchor (root 1, 2, ... in sending order)

 private:
  uint64_t root_ = 0;
  int64_t now_ = 0;
  std::size_t taken_ = 0;
  std::deque<Tuple> sent_;  // the bolt may hold pointers to what it was given
  std::shared_ptr<topology::TopologySpec> spec_;
  std::map<std::string, const topology::StreamSchema*> schemas_;
  std::unique_ptr<topology::TopologyContext> context_;
  std::unique_ptr<SymmetricHashJoinBolt> bolt_;
};

SymmetricHashJoinBoltConfig Config(SymmetricJoinType type, std::string condition,
                                   std::string select, int64_t delay_ms = 10'000) {
  SymmetricHashJoinBoltConfig c;
  c.selector = JoinSelector::kStream;
  c.left = {"L", {"key"}};
  c.right = {"R", {"key"}};
  c.type = type;
  c.mode = SymmetricJoinMode::kAppend;
  c.condition = std::move(condition);
  c.select = std::move(select);
  c.timestamp_field = "t";
  c.lag_ms = delay_ms - 1;
  c.watermark_interval_ms = 1000;
  return c;
}

// Spark's setupJoinWithRangeCondition: leftKey = rightKey AND lt BETWEEN rt - 5 s AND rt + 5 s.
constexpr const char* kRange = "L:t >= R:t - 5000 AND L:t <= R:t + 5000";
constexpr const char* kRangeSelect = "L:key AS lk, R:key AS rk, L:t AS lt, R:t AS rt";

Rows Of(std::initializer_list<std::string> rows) {
  Rows out(rows);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SymmetricAppendJoinTest, SparkInnerJoinWithAOneSidedTimeBound) {
  // StreamingInnerJoinSuite "...one side condition": lt < rt - 5 s; the left side is never
  // evicted, the right one at wm + 5 s.
  Harness h;
  h.Start(Config(SymmetricJoinType::kInner, "L:t < R:t - 5000", "L:key, L:t, R:t"));
  h.Send("L", 1, 5);
  EXPECT_EQ(h.Batch(), Rows{});
  h.Send("R", 1, 11);
  EXPECT_EQ(h.Batch(), Of({"1,5000,11000"}));
  h.Send("R", 1, 10);
  EXPECT_EQ(h.Batch(), Rows{});  // 5 < 5 is false
  h.Send("L", 1, 3);
  h.Send("L", 1, 30);
  EXPECT_EQ(h.Batch(), Of({"1,3000,10000", "1,3000,11000"}));
  h.Send("R", 0, 30);
  EXPECT_EQ(h.Batch(), Rows{});  // wm 20: the right rows 10 and 11 leave
  h.Send("R", 1, 20);            // late
  h.Send("R", 1, 21);
  h.Send("R", 1, 28);
  EXPECT_EQ(h.Batch(), Of({"1,3000,21000", "1,5000,21000", "1,3000,28000", "1,5000,28000"}));
  h.Send("L", 1, 20);  // late
  h.Send("L", 1, 21);
  EXPECT_EQ(h.Batch(), Of({"1,21000,28000"}));
  EXPECT_EQ(h.out.dropped, 2u);
  EXPECT_EQ(h.out.dropped_by_cause, (topology::NamedCounts{{"late", 2}}));
}

TEST(SymmetricAppendJoinTest, SparkLeftOuterJoinWithARangeCondition) {
  Harness h;
  h.Start(Config(SymmetricJoinType::kLeft, kRange, kRangeSelect));
  h.Send("L", 1, 5);
  h.Send("L", 3, 5);
  EXPECT_EQ(h.Batch(), Rows{});
  h.Send("R", 1, 10);
  h.Send("R", 2, 5);
  EXPECT_EQ(h.Batch(), Of({"1,1,5000,10000"}));
  h.Send("R", 1, 11);
  EXPECT_EQ(h.Batch(), Rows{});  // 5 < 11 - 5
  h.Send("L", 1, 7);
  h.Send("L", 1, 30);
  EXPECT_EQ(h.Batch(), Of({"1,1,7000,10000", "1,1,7000,11000"}));
  h.Send("R", 0, 30);
  EXPECT_EQ(h.Batch(), Of({"3,null,5000,null"}));  // wm 20: left rows <= 14.999 leave
  EXPECT_EQ(h.End(), Of({"1,null,30000,null"}));   // Tempest's end of input: wm +inf
}

TEST(SymmetricAppendJoinTest, SparkRightOuterJoinWithARangeCondition) {
  Harness h;
  h.Start(Config(SymmetricJoinType::kRight, kRange, kRangeSelect));
  h.Send("L", 1, 5);
  h.Send("L", 3, 5);
  EXPECT_EQ(h.Batch(), Rows{});
  h.Send("R", 1, 10);
  h.Send("R", 2, 5);
  EXPECT_EQ(h.Batch(), Of({"1,1,5000,10000"}));
  h.Send("R", 1, 11);
  EXPECT_EQ(h.Batch(), Rows{});
  h.Send("L", 1, 7);
  h.Send("L", 1, 30);
  EXPECT_EQ(h.Batch(), Of({"1,1,7000,10000", "1,1,7000,11000"}));
  h.Send("R", 0, 30);
  EXPECT_EQ(h.Batch(), Of({"null,2,null,5000"}));
  EXPECT_EQ(h.End(), Of({"null,0,null,30000"}));
}

TEST(SymmetricAppendJoinTest, SparkFullOuterJoinWithARangeCondition) {
  Harness h;
  h.Start(Config(SymmetricJoinType::kFull, kRange, kRangeSelect));
  h.Send("L", 1, 5);
  h.Send("L", 3, 5);
  EXPECT_EQ(h.Batch(), Rows{});
  h.Send("R", 1, 10);
  h.Send("R", 2, 5);
  EXPECT_EQ(h.Batch(), Of({"1,1,5000,10000"}));
  h.Send("R", 1, 9);
  EXPECT_EQ(h.Batch(), Of({"1,1,5000,9000"}));
  h.Send("L", 1, 7);
  h.Send("L", 1, 30);
  EXPECT_EQ(h.Batch(), Of({"1,1,7000,9000", "1,1,7000,10000"}));
  h.Send("R", 0, 30);
  EXPECT_EQ(h.Batch(), Of({"3,null,5000,null", "null,2,null,5000"}));
  EXPECT_EQ(h.End(), Of({"1,null,30000,null", "null,0,null,30000"}));
}

TEST(SymmetricAppendJoinTest, SparkLeftSemiJoinWithARangeCondition) {
  Harness h;
  h.Start(Config(SymmetricJoinType::kLeftSemi, kRange, "L:key, L:t"));
  h.Send("L", 1, 5);
  h.Send("L", 3, 5);
  EXPECT_EQ(h.Batch(), Rows{});
  h.Send("R", 1, 10);
  h.Send("R", 2, 5);
  EXPECT_EQ(h.Batch(), Of({"1,5000"}));
  h.Send("R", 1, 9);
  EXPECT_EQ(h.Batch(), Rows{});  // (1, 5) already matched: emitted once only
  h.Send("L", 1, 7);
  h.Send("L", 1, 30);
  EXPECT_EQ(h.Batch(), Of({"1,7000"}));
  h.Send("R", 0, 30);
  EXPECT_EQ(h.Batch(), Rows{});  // eviction emits nothing
  EXPECT_EQ(h.End(), Rows{});
}

TEST(SymmetricAppendJoinTest, LeftAntiJoinEmitsWhatNeverMatchedWhenItLeaves) {
  // No engine has this in append mode: Spark's semi-join batches, the complement as output.
  Harness h;
  h.Start(
      Config(SymmetricJoinType::kLeftAnti, kRange + std::string(" AND L:lv != 6"), "L:key, L:t"));
  h.Send("L", 1, 5);
  h.Send("L", 3, 5);  // lv 6: fails its pre-join filter, can never match: emitted at once
  EXPECT_EQ(h.Batch(), Of({"3,5000"}));
  h.Send("R", 1, 10);
  h.Send("R", 2, 5);
  EXPECT_EQ(h.Batch(), Rows{});  // (1, 5) matched: it will never be emitted
  h.Send("L", 1, 7);             // matches (1, 10) on arrival
  h.Send("L", 2, 30);
  h.Send("L", 1, 30);
  EXPECT_EQ(h.Batch(), Rows{});
  h.Send("R", 0, 30);
  EXPECT_EQ(h.Batch(), Rows{});  // wm 20: (1, 5) leaves matched
  h.Send("R", 1, 33);            // matches (1, 30)
  EXPECT_EQ(h.Batch(), Rows{});
  EXPECT_EQ(h.End(), Of({"2,30000"}));
}

// Spark's windowed cases join on (key, window): here the window's end `wend` is the event time
// and part of both keys, so a pair's times are equal and a row leaves once the watermark passes
// its window. lag 19 999: Spark's watermark after "L 20, R 21" is 10 s; here max wend 30 s - lag
// gives 10.001 s.
SymmetricHashJoinBoltConfig Windowed(SymmetricJoinType type, std::string condition) {
  SymmetricHashJoinBoltConfig c =
      Config(type, std::move(condition), "L:key AS lk, R:key AS rk, L:wend, R:wend, lv, rv");
  c.left = {"L", {"key", "wend"}};
  c.right = {"R", {"key", "wend"}};
  c.timestamp_field = "wend";
  c.lag_ms = 19'999;
  return c;
}

TEST(SymmetricAppendJoinTest, SparkLeftOuterEarlyStateExclusionOnEitherSide) {
  Harness left;
  left.Start(Windowed(SymmetricJoinType::kLeft, "L:lv > 4"));
  for (int v : {1, 2, 3}) left.Send("L", v, v);
  for (int v : {3, 4, 5}) left.Send("R", v, v);
  EXPECT_EQ(left.Batch(),
            Of({"1,null,10000,null,2,null", "2,null,10000,null,4,null", "3,3,10000,10000,6,9"}));
  left.Send("L", 20, 20);
  left.Send("R", 21, 21);
  EXPECT_EQ(left.Batch(), Rows{});  // window 10 leaves: left 3 had matched
  left.Send("R", 20, 20);
  EXPECT_EQ(left.Batch(), Of({"20,20,30000,30000,40,60"}));

  Harness right;
  right.Start(Windowed(SymmetricJoinType::kLeft, "R:rv > 7"));
  for (int v : {3, 4, 5}) right.Send("L", v, v);
  for (int v : {1, 2, 3}) right.Send("R", v, v);
  EXPECT_EQ(right.Batch(), Of({"3,3,10000,10000,6,9"}));  // right 1, 2 dropped silently
  right.Send("L", 20, 20);
  right.Send("R", 21, 21);
  EXPECT_EQ(right.Batch(), Of({"4,null,10000,null,8,null", "5,null,10000,null,10,null"}));
}

TEST(SymmetricAppendJoinTest, SparkWindowedFullOuterJoin) {
  Harness h;
  h.Start(Windowed(SymmetricJoinType::kFull, ""));
  for (int v = 1; v <= 5; ++v) h.Send("L", v, v);
  for (int v = 3; v <= 7; ++v) h.Send("R", v, v);
  EXPECT_EQ(h.Batch(),
            Of({"3,3,10000,10000,6,9", "4,4,10000,10000,8,12", "5,5,10000,10000,10,15"}));
  h.Send("L", 21, 21);
  h.Send("R", 22, 22);
  EXPECT_EQ(h.Batch(), Of({"1,null,10000,null,2,null", "2,null,10000,null,4,null",
                           "null,6,null,10000,null,18", "null,7,null,10000,null,21"}));
  h.Send("L", 22, 22);
  EXPECT_EQ(h.Batch(), Of({"22,22,30000,30000,44,66"}));
  h.Send("L", 1, 1);  // window 10 is behind the watermark: late
  h.Send("R", 5, 5);
  EXPECT_EQ(h.Batch(), Rows{});
  EXPECT_EQ(h.out.dropped, 2u);
  EXPECT_EQ(h.End(), Of({"21,null,30000,null,42,null"}));
}

TEST(SymmetricAppendJoinTest, EvictedSidesAreAckedWhenTheyLeaveAndOutputsAnchoredToThem) {
  Harness h;
  // Only the right side is bounded (lt < rt - 5 s): left rows are acked at once.
  h.Start(Config(SymmetricJoinType::kInner, "L:t < R:t - 5000", "L:key, L:t, R:t"));
  h.Send("L", 1, 5);
  EXPECT_EQ(h.out.acked.size(), 1u);
  h.Send("R", 1, 11);
  EXPECT_EQ(h.out.acked.size(), 1u);  // held until it leaves
  ASSERT_EQ(h.out.emitted.size(), 1u);
  // Anchored to the right row only: the left one is acked already.
  ASSERT_EQ(h.out.emitted[0].anchors.size(), 1u);
  EXPECT_EQ(h.out.emitted[0].anchors[0]->GetValue(1), Value(int64_t{11000}));
  h.Send("L", 1, 40);
  h.Send("R", 1, 40);
  h.Batch();  // wm 30.001: the right row at 11 s leaves, the one at 40 s stays
  EXPECT_EQ(h.out.acked.size(), 3u);
  h.End();
  EXPECT_EQ(h.out.acked.size(), 4u);  // every input once
}

// Rows fed as batches (packed from their cells where the side is evicted and has no filter of its
// own, else as tuples) give the same outputs in the same order, anchors, acks, reports and counts
// as tuple by tuple: outer, semi (a left row joined on arrival is not kept) and anti joins, with a
// one-sided bound (its left side is never evicted), a pre-join filter, null keys, a late row and a
// bad timestamp.
TEST(SymmetricAppendJoinTest, BatchesJoinAsTuplesDo) {
  using Input = std::pair<std::string, Values>;
  auto row = [](const std::string& stream, Value key, int64_t seconds) {
    const Value value(stream == "L" ? 6 : 9);
    return Input{stream, Values{std::move(key), seconds * 1000, value, 0}};
  };
  // Batches, a tick after each.
  const std::vector<std::vector<Input>> batches = {
      {row("L", 1, 5), row("L", 3, 5), row("L", kNull, 6)},
      {row("R", 1, 10), row("R", 2, 5), row("R", 1, 9), row("R", kNull, 7)},
      {row("L", 1, 7), row("L", 1, 30), {"L", Values{4, "noon", 6, 0}}},
      {row("R", 0, 30), row("R", 1, 12)},
      {row("L", 2, 31), row("R", 2, 33), row("L", 1, 1)}};
  const std::vector<std::pair<SymmetricJoinType, std::string>> joins = {
      {SymmetricJoinType::kLeft, kRange},
      {SymmetricJoinType::kFull, kRange},
      {SymmetricJoinType::kLeftSemi, kRange},
      {SymmetricJoinType::kLeftAnti, kRange},
      {SymmetricJoinType::kInner, "L:t < R:t - 5000"},
      {SymmetricJoinType::kLeft, kRange + std::string(" AND R:rv != 9")}};
  for (const auto& [type, condition] : joins) {
    const bool semi = type == SymmetricJoinType::kLeftSemi || type == SymmetricJoinType::kLeftAnti;
    const std::string select = semi ? "L:key, L:t" : "L:key, R:key, L:t, R:t";
    Harness by_tuple;
    by_tuple.tracked = true;
    by_tuple.Start(Config(type, condition, select));
    Harness by_batch;
    by_batch.tracked = true;
    by_batch.Start(Config(type, condition, select));
    for (const std::vector<Input>& batch : batches) {
      for (const auto& [stream, values] : batch) by_tuple.SendRaw(stream, values);
      by_batch.SendBatch(batch);
      EXPECT_EQ(by_batch.Batch(), by_tuple.Batch()) << condition;
    }
    EXPECT_EQ(by_batch.End(), by_tuple.End());
    SCOPED_TRACE(condition);
    ASSERT_EQ(by_batch.out.emitted.size(), by_tuple.out.emitted.size());
    for (std::size_t i = 0; i < by_tuple.out.emitted.size(); ++i) {
      EXPECT_EQ(by_batch.out.emitted[i].values, by_tuple.out.emitted[i].values) << i;
      EXPECT_EQ(by_batch.out.emitted[i].anchor_roots, by_tuple.out.emitted[i].anchor_roots) << i;
    }
    std::vector<uint64_t> acked[2];
    for (int h = 0; h < 2; ++h) {
      for (const Tuple& t : (h == 0 ? by_tuple : by_batch).out.acked) {
        acked[h].push_back(tempest::topology::TupleAccess::Ack(t).anchors.at(0).root);
      }
    }
    EXPECT_EQ(acked[1], acked[0]);
    EXPECT_EQ(acked[1].size(), 15u);  // every input once
    EXPECT_EQ(by_batch.out.errors, by_tuple.out.errors);
    EXPECT_EQ(by_batch.out.errors.size(), 1u);
    EXPECT_EQ(by_batch.out.dropped, by_tuple.out.dropped);
  }
}

TEST(SymmetricAppendJoinTest, StateSizesAreReportedAsGauges) {
  Harness h;
  h.Start(Config(SymmetricJoinType::kLeft, kRange, kRangeSelect));
  h.Send("L", 1, 5);
  h.Send("L", 3, 5);
  h.Send("R", 1, 10);
  h.Batch();
  // The tick at 1 s sets the watermark: min(5 s, 10 s) - lag 9999 ms = -4999 ms, shown as 0,
  // 5999 ms behind the clock.
  using G = std::vector<std::pair<std::string, uint64_t>>;
  EXPECT_EQ(h.out.gauges, (G{{"state rows left", 2},
                             {"state rows right", 1},
                             {"state peak left", 2},
                             {"state peak right", 1},
                             {"watermark ms", 0},
                             {"watermark lag ms", 5999}}));
  h.End();
  EXPECT_EQ(h.out.gauges, (G{{"state rows left", 0},
                             {"state rows right", 0},
                             {"state peak left", 2},
                             {"state peak right", 1},
                             {"watermark ms", 0},
                             {"watermark lag ms", 5999}}));
}

TEST(SymmetricAppendJoinTest, RowsThatAreNotInsertsOrHaveNoIntegerTimeAreReportedAndDropped) {
  Harness h(true);
  h.Start(Config(SymmetricJoinType::kInner, "", "L:key, R:key AS rk"));
  h.SendRaw("L", {1, 1000, 2, 10000, "+I"});
  h.SendRaw("L", {1, 1000, 2, 10000, kNull});
  h.SendRaw("L", {1, 1000, 2, 10000, "-D"});
  h.SendRaw("R", {1, "soon", 3, 10000, "+I"});
  h.SendRaw("R", {1, 1000, 3, 10000, "+I"});
  EXPECT_EQ(h.Take(), Of({"1,1", "1,1"}));  // both inserts of L, once each
  ASSERT_EQ(h.out.errors.size(), 2u);
  EXPECT_EQ(h.out.errors[0],
            "tuple src:L[1] [1,1000,2,10000,\"-D\"] has _op \"-D\": mode append joins inserts "
            "only (+I or no _op; use mode changelog for retractions); acked and dropped");
  EXPECT_EQ(h.out.errors[1],
            "tuple src:R[1] [1,\"soon\",3,10000,\"+I\"] has no integer timestamp in field "
            "\"t\"; acked and dropped");
  EXPECT_EQ(h.out.dropped, 2u);
  EXPECT_EQ(h.out.dropped_by_cause, (topology::NamedCounts{{"bad_op", 1}, {"no_timestamp", 1}}));
  EXPECT_EQ(h.out.acked.size(), 5u);  // every one at once: nothing bounds either side
}

// Spark's cases with a watermark per input (delays differ per side, or one input feeds both
// sides), at the state: IntervalJoinState with the eviction PlanSymmetricAppendEviction solves
// and the condition's pair filter, advanced to Spark's batch watermarks (+1 ms, as above). Rows
// [key, t] of streams L and R; outputs "lkey,lt,rkey,rt" (null for a padded side).
class StateHarness final : private IntervalJoinSink {
 public:
  StateHarness(SymmetricJoinType type, const std::string& condition) {
    SymmetricHashJoinBoltConfig c = Config(type, condition, "L:key");
    const Fields fields{"key", "t"};
    for (const char* name : {"L", "R"}) {
      auto schema = std::make_shared<topology::StreamSchema>();
      schema->component = "src";
      schema->stream = name;
      schema->fields = std::make_shared<const Fields>(fields);
      schemas_.push_back(schema);
    }
    const std::vector<std::pair<topology::GlobalStreamId, Fields>> inputs = {
        {{"src", "L"}, fields}, {{"src", "R"}, fields}};
    condition_ = SplitJoinCondition(condition, {"L", "left", {fields}}, {"R", "right", {fields}});
    const SymmetricAppendEviction e = PlanSymmetricAppendEviction(c, inputs);
    IntervalJoinOptions o;
    o.bounds = {e.lower, e.upper};
    for (int side = 0; side < 2; ++side) {
      o.stay[side] = e.stay[side] ? *e.stay[side] : IntervalJoinOptions::kNeverLeaves;
    }
    preserved_ = type == SymmetricJoinType::kLeft;
    state_.emplace(static_cast<IntervalJoinSink&>(*this), o);
  }

  // Adds [key, seconds] to a side unless it is late; false if late.
  bool Add(JoinSide side, int64_t key, int64_t seconds) {
    const int64_t t = seconds * 1000;
    if (state_->IsLate(t)) return false;
    Tuple row(schemas_[side == JoinSide::kLeft ? 0 : 1].get(), 1, Values{key, t});
    const Value k(key);
    const KeyRef ref{&k};
    state_->Add(side, ref, HashKey(ref), t, std::move(row));
    return true;
  }
  // Spark's watermark after a batch, in seconds.
  void Watermark(int64_t seconds) { state_->Advance(seconds * 1000 + 1); }
  Rows Take() {
    Rows out;
    out.swap(rows_);
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  bool Pairs(const Tuple& l, const Tuple& r) override {
    const Tuple* both[2] = {&l, &r};
    return !condition_.pairs || condition_.pairs->bound.Holds(both);
  }
  void Joined(const Tuple& l, const Tuple& r, int64_t) override {
    rows_.push_back(fmt::format("{},{},{},{}", l.GetValue(0).AsInt(), l.GetValue(1).AsInt() / 1000,
                                r.GetValue(0).AsInt(), r.GetValue(1).AsInt() / 1000));
  }
  void Left(JoinSide side, Tuple& t, int64_t, bool matched) override {
    if (side == JoinSide::kLeft && preserved_ && !matched) {
      rows_.push_back(
          fmt::format("{},{},null,null", t.GetValue(0).AsInt(), t.GetValue(1).AsInt() / 1000));
    }
  }

  std::vector<std::shared_ptr<topology::StreamSchema>> schemas_;
  JoinCondition condition_;
  bool preserved_ = false;
  std::optional<IntervalJoinState> state_;
  Rows rows_;
};

TEST(SymmetricAppendJoinTest, SparkInnerJoinWithATwoSidedRangeAndADelayPerSide) {
  // StreamingInnerJoinSuite "...two side conditions": left delay 20 s, right 30 s; lt BETWEEN
  // rt - 10 s AND rt + 5 s.
  StateHarness h(SymmetricJoinType::kInner, "L:t >= R:t - 10000 AND L:t <= R:t + 5000");
  h.Add(JoinSide::kLeft, 1, 20);
  EXPECT_EQ(h.Take(), Rows{});
  for (int t : {14, 15, 25, 26, 30, 31}) h.Add(JoinSide::kRight, 1, t);
  EXPECT_EQ(h.Take(), Of({"1,20,1,15", "1,20,1,25", "1,20,1,26", "1,20,1,30"}));
  h.Add(JoinSide::kRight, 1, 60);
  EXPECT_EQ(h.Take(), Rows{});
  for (int t : {49, 50, 65, 66}) h.Add(JoinSide::kLeft, 1, t);
  EXPECT_EQ(h.Take(), Of({"1,50,1,60", "1,65,1,60"}));
  h.Watermark(30);  // min(66 - 20, 60 - 30): the right rows 14 and 15 leave
  EXPECT_FALSE(h.Add(JoinSide::kLeft, 1, 30));  // late
  h.Add(JoinSide::kLeft, 1, 31);
  EXPECT_EQ(h.Take(), Of({"1,31,1,26", "1,31,1,30", "1,31,1,31"}));
  h.Add(JoinSide::kRight, 1, 80);
  h.Watermark(46);  // min(66 - 20, 80 - 30): left rows below 36 s and right below 41 s leave
  EXPECT_EQ(h.Take(), Rows{});
  EXPECT_FALSE(h.Add(JoinSide::kRight, 1, 46));
  h.Add(JoinSide::kRight, 1, 50);
  EXPECT_EQ(h.Take(), Of({"1,49,1,50", "1,50,1,50"}));
}

TEST(SymmetricAppendJoinTest, SparkSelfLeftOuterJoinPadsOnlyRowsThatNeverMatched) {
  // StreamingOuterJoinSuite SPARK-26187: one input (id, t); left = every row, right = the even
  // ones; delay 5 s; leftId = rightId AND rt >= lt AND rt <= lt + 5 s. Spark runs a batch's left
  // rows, then its right rows.
  StateHarness h(SymmetricJoinType::kLeft, "R:t >= L:t AND R:t <= L:t + 5000");
  const auto batch = [&](int from, int to) {
    for (int i = from; i <= to; ++i) h.Add(JoinSide::kLeft, i, i);
    for (int i = from; i <= to; ++i) {
      if (i % 2 == 0) h.Add(JoinSide::kRight, i, i);
    }
  };
  batch(1, 5);
  EXPECT_EQ(h.Take(), Of({"2,2,2,2", "4,4,4,4"}));
  batch(6, 10);
  h.Watermark(5);  // min(10 - 5, 10 - 5)
  EXPECT_EQ(h.Take(), Of({"6,6,6,6", "8,8,8,8", "10,10,10,10"}));
  batch(11, 15);
  h.Watermark(9);  // min(15 - 5, 14 - 5): left rows 1-3 leave; 2 had matched
  EXPECT_EQ(h.Take(), Of({"12,12,12,12", "14,14,14,14", "1,1,null,null", "3,3,null,null"}));
}

std::string Refusal(const SymmetricHashJoinBoltConfig& c) {
  try {
    Harness h;
    h.Start(c);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(SymmetricAppendJoinTest, AnOuterJoinThatCouldNeverEvictItsPreservedSideIsRefused) {
  EXPECT_EQ(Refusal(Config(SymmetricJoinType::kLeft, "L:t < R:t - 5000", "L:key")),
            "a left join in mode append emits a row of \"L\" that found no match only when it "
            "leaves the state, and nothing bounds how long it could still match: no row of \"R\" "
            "ever becomes too late for it. Bound it (Spark requires the same: a watermark in the "
            "join keys, or a watermark on the nullable side and a range condition): put L:t and "
            "R:t at the same place in both keys, or add to the condition a lower bound of L:t by "
            "R:t, e.g. \"R:t <= L:t + 60000\" (the condition \"L:t < R:t - 5000\" has none)");
  // Full needs both sides: here only the left one is bounded.
  const std::string full = Refusal(Config(SymmetricJoinType::kFull, "R:t <= L:t + 10", "L:key"));
  EXPECT_NE(full.find("emits a row of \"R\""), std::string::npos) << full;
  EXPECT_NE(Refusal(Config(SymmetricJoinType::kLeftAnti, "", "L:key"))
                .find("there is no "
                      "condition"),
            std::string::npos);
  EXPECT_EQ(Refusal(Config(SymmetricJoinType::kInner, "", "L:key")), "accepted");
  EXPECT_EQ(Refusal(Config(SymmetricJoinType::kRight, "L:t <= R:t", "L:key")), "accepted");
  EXPECT_NE(Refusal(Config(SymmetricJoinType::kRight, "L:t >= R:t", "L:key")).find("of \"R\""),
            std::string::npos);
}

TEST(SymmetricAppendJoinTest, SettingsOfTheOtherModeAndRightFieldsOfASemiJoinAreRefused) {
  SymmetricHashJoinBoltConfig semi = Config(SymmetricJoinType::kLeftSemi, kRange, "L:key, rv");
  EXPECT_EQ(Refusal(semi),
            "select: \"rv\" is a field of \"R\", but a left_semi join emits left rows only");
  SymmetricHashJoinBoltConfig ttl = Config(SymmetricJoinType::kInner, "", "L:key");
  ttl.state_ttl_ms = 10;
  EXPECT_THROW(SymmetricHashJoinBolt{ttl}, std::invalid_argument);
  SymmetricHashJoinBoltConfig no_time = Config(SymmetricJoinType::kInner, "", "L:key");
  no_time.timestamp_field.clear();
  EXPECT_THROW(SymmetricHashJoinBolt{no_time}, std::invalid_argument);
  SymmetricHashJoinBoltConfig changelog = Config(SymmetricJoinType::kInner, "", "L:key");
  changelog.mode = SymmetricJoinMode::kChangelog;
  EXPECT_THROW(SymmetricHashJoinBolt{changelog}, std::invalid_argument);  // timestamp_field
  SymmetricHashJoinBoltConfig side_ttl = Config(SymmetricJoinType::kInner, "", "L:key");
  side_ttl.right.state_ttl_ms = 100;
  EXPECT_THROW(SymmetricHashJoinBolt{side_ttl}, std::invalid_argument);
}

}  // namespace
}  // namespace tempest::bolts

// IntervalJoinState: Flink's IntervalJoinOperatorTest cases with their data and expectations
// (matching with every inclusive/exclusive bound combination, in both arrival orders; state
// cleanup; late data; the pair's timestamp), then what Tempest adds: the order elements leave
// in, the matched flag outer joins pad by, out-of-order arrivals, keys forgotten when empty.
//
// Flink's Watermark(t) promises no element at or below t; Tempest's watermark W (Storm's)
// promises none below W. So Flink's processWatermark(t) is Advance(t + 1) here, and Flink's
// cleanup timer at time T firing at watermark T is our element leaving once W > T.
// testRestoreFromSnapshot has no counterpart: Tempest's join state is not checkpointed (a crash
// replays the unacked inputs instead).
#include "bolts/join/interval_join_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "topology/row_batch.h"
#include "topology/stream_schema.h"

namespace tempest::bolts {
namespace {

using topology::Tuple;
using topology::Value;
using Pair = std::pair<int64_t, int64_t>;  // (left ts, right ts)

// The stream of every element here: [key, ts, tag].
topology::StreamSchema KeyTsTag() {
  topology::StreamSchema schema;
  schema.fields = std::make_shared<const topology::Fields>(topology::Fields{"key", "ts", "tag"});
  return schema;
}

// What the state reported.
struct Recorder : IntervalJoinSink {
  std::vector<Pair> pairs;
  std::vector<int64_t> pair_ts;
  struct Leave {
    JoinSide side;
    int64_t ts;
    bool matched;
    std::string tag;
  };
  std::vector<Leave> left;

  void Joined(const Tuple& l, const Tuple& r, int64_t ts) override {
    pairs.emplace_back(l.GetValue(1).AsInt(), r.GetValue(1).AsInt());
    pair_ts.push_back(ts);
  }
  void Left(JoinSide side, Tuple& t, int64_t ts, bool matched) override {
    left.push_back({side, ts, matched, std::string(t.GetValue(2).AsString())});
  }
};

// Flink's JoinTestBuilder over IntervalJoinState: elements [key, ts, tag] of key "key", a
// watermark per side, the state advanced to their minimum (plus one, see above). Late elements
// are refused as the bolt refuses them and recorded as Flink's side output.
class Harness {
 public:
  Harness(int64_t lower, bool lower_inclusive, int64_t upper, bool upper_inclusive)
      : state_(
            std::make_unique<IntervalJoinState>(IntervalBounds{lower_inclusive ? lower : lower + 1,
                                                               upper_inclusive ? upper : upper - 1},
                                                out)) {}

  Harness& Element1(int64_t ts, std::string key = "key") { return Add(JoinSide::kLeft, ts, key); }
  Harness& Element2(int64_t ts, std::string key = "key") { return Add(JoinSide::kRight, ts, key); }
  Harness& Watermark1(int64_t t) {
    wm_[0] = t;
    return Propagate();
  }
  Harness& Watermark2(int64_t t) {
    wm_[1] = t;
    return Propagate();
  }
  // Flink's processElementsAndWatermarks(from, to).
  Harness& ElementsAndWatermarks(int64_t from, int64_t to, bool lhs_faster) {
    for (int pass = 0; pass < 2; ++pass) {
      const bool left = (pass == 0) == lhs_faster;
      for (int64_t i = from; i <= to; ++i) {
        left ? Element1(i).Watermark1(i) : Element2(i).Watermark2(i);
      }
    }
    return *this;
  }

  std::vector<Pair> SortedPairs() const {
    std::vector<Pair> p = out.pairs;
    std::sort(p.begin(), p.end());
    return p;
  }
  std::vector<int64_t> Buffer(JoinSide side) const { return state_->Timestamps(side); }
  IntervalJoinState& state() { return *state_; }

  Recorder out;
  std::vector<std::pair<JoinSide, int64_t>> late;

 private:
  Harness& Add(JoinSide side, int64_t ts, const std::string& key) {
    if (state_->IsLate(ts)) {
      late.emplace_back(side, ts);
      return *this;
    }
    Tuple t(&schema_, 1,
            topology::Values{
                Value(key), Value(ts),
                Value(std::string(side == JoinSide::kLeft ? "lhs" : "rhs") + std::to_string(ts))});
    const Value k(key);
    const KeyRef ref = {&k};
    state_->Add(side, ref, HashKey(ref), ts, std::move(t));
    return *this;
  }
  Harness& Propagate() {
    if (wm_[0] && wm_[1]) state_->Advance(std::min(*wm_[0], *wm_[1]) + 1);
    return *this;
  }

  const topology::StreamSchema schema_ = KeyTsTag();
  std::unique_ptr<IntervalJoinState> state_;
  std::optional<int64_t> wm_[2];
};

std::vector<Pair> Sorted(std::vector<Pair> p) {
  std::sort(p.begin(), p.end());
  return p;
}

// Flink's matching cases, each in both arrival orders (its test parameter lhsFasterThanRhs).
class FlinkIntervalJoinTest : public ::testing::TestWithParam<bool> {};

TEST_P(FlinkIntervalJoinTest, ImplementationMirrorsCorrectly) {
  Harness a(1, true, 3, false);
  a.ElementsAndWatermarks(1, 4, GetParam());
  EXPECT_EQ(a.SortedPairs(), Sorted({{1, 2}, {1, 3}, {2, 3}, {2, 4}, {3, 4}}));
  Harness b(-3, false, -1, true);
  b.ElementsAndWatermarks(1, 4, GetParam());
  EXPECT_EQ(b.SortedPairs(), Sorted({{2, 1}, {3, 1}, {3, 2}, {4, 2}, {4, 3}}));
  EXPECT_TRUE(a.late.empty());
  EXPECT_TRUE(b.late.empty());
}

TEST_P(FlinkIntervalJoinTest, NegativeInclusiveAndNegativeInclusive) {
  Harness h(-2, true, -1, true);
  h.ElementsAndWatermarks(1, 4, GetParam());
  EXPECT_EQ(h.SortedPairs(), Sorted({{2, 1}, {3, 1}, {3, 2}, {4, 2}, {4, 3}}));
  EXPECT_TRUE(h.late.empty());
}

TEST_P(FlinkIntervalJoinTest, NegativeInclusiveAndPositiveInclusive) {
  Harness h(-1, true, 1, true);
  h.ElementsAndWatermarks(1, 4, GetParam());
  EXPECT_EQ(
      h.SortedPairs(),
      Sorted({{1, 1}, {1, 2}, {2, 1}, {2, 2}, {2, 3}, {3, 2}, {3, 3}, {3, 4}, {4, 3}, {4, 4}}));
  EXPECT_TRUE(h.late.empty());
}

TEST_P(FlinkIntervalJoinTest, PositiveInclusiveAndPositiveInclusive) {
  Harness h(1, true, 2, true);
  h.ElementsAndWatermarks(1, 4, GetParam());
  EXPECT_EQ(h.SortedPairs(), Sorted({{1, 2}, {1, 3}, {2, 3}, {2, 4}, {3, 4}}));
}

TEST_P(FlinkIntervalJoinTest, NegativeExclusiveAndNegativeExclusive) {
  Harness h(-3, false, -1, false);
  h.ElementsAndWatermarks(1, 4, GetParam());
  EXPECT_EQ(h.SortedPairs(), Sorted({{3, 1}, {4, 2}}));
}

TEST_P(FlinkIntervalJoinTest, NegativeExclusiveAndPositiveExclusive) {
  Harness h(-1, false, 1, false);
  h.ElementsAndWatermarks(1, 4, GetParam());
  EXPECT_EQ(h.SortedPairs(), Sorted({{1, 1}, {2, 2}, {3, 3}, {4, 4}}));
}

TEST_P(FlinkIntervalJoinTest, PositiveExclusiveAndPositiveExclusive) {
  Harness h(1, false, 3, false);
  h.ElementsAndWatermarks(1, 4, GetParam());
  EXPECT_EQ(h.SortedPairs(), Sorted({{1, 3}, {2, 4}}));
}

TEST_P(FlinkIntervalJoinTest, ReturnsThePairsTimestampTheMaxOfBoth) {
  Harness h(-1, true, 1, true);
  h.ElementsAndWatermarks(1, 4, GetParam());
  ASSERT_EQ(h.out.pairs.size(), 10u);
  for (std::size_t i = 0; i < h.out.pairs.size(); ++i) {
    EXPECT_EQ(h.out.pair_ts[i], std::max(h.out.pairs[i].first, h.out.pairs[i].second));
  }
}

INSTANTIATE_TEST_SUITE_P(ArrivalOrder, FlinkIntervalJoinTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? std::string("lhs_faster") : "rhs_faster";
                         });

// Flink's four testStateCleanup cases: fill both buffers with 1..5, then watermarks 1, 4, 6.
struct CleanupCase {
  const char* name;
  int64_t lower;
  bool lower_inclusive;
  int64_t upper;
  bool upper_inclusive;
  std::vector<int64_t> left_at_1, right_at_1, left_at_4, right_at_4;
};

class FlinkStateCleanupTest : public ::testing::TestWithParam<CleanupCase> {};

TEST_P(FlinkStateCleanupTest, BuffersHoldExactlyWhatCanStillMatch) {
  const CleanupCase& c = GetParam();
  Harness h(c.lower, c.lower_inclusive, c.upper, c.upper_inclusive);
  for (int64_t i = 1; i <= 5; ++i) h.Element1(i);
  for (int64_t i = 1; i <= 5; ++i) h.Element2(i);
  h.Watermark1(1).Watermark2(1);
  EXPECT_EQ(h.Buffer(JoinSide::kLeft), c.left_at_1);
  EXPECT_EQ(h.Buffer(JoinSide::kRight), c.right_at_1);
  h.Watermark1(4).Watermark2(4);
  EXPECT_EQ(h.Buffer(JoinSide::kLeft), c.left_at_4);
  EXPECT_EQ(h.Buffer(JoinSide::kRight), c.right_at_4);
  h.Watermark1(6).Watermark2(6);
  EXPECT_TRUE(h.Buffer(JoinSide::kLeft).empty());
  EXPECT_TRUE(h.Buffer(JoinSide::kRight).empty());
  EXPECT_EQ(h.state().keys(), 0u);  // the key is forgotten with its last element
  EXPECT_EQ(h.out.left.size(), 10u);
}

INSTANTIATE_TEST_SUITE_P(Flink, FlinkStateCleanupTest,
                         ::testing::Values(CleanupCase{"NegativeInclusiveNegativeInclusive",
                                                       -1,
                                                       true,
                                                       0,
                                                       true,
                                                       {2, 3, 4, 5},
                                                       {1, 2, 3, 4, 5},
                                                       {5},
                                                       {4, 5}},
                                           CleanupCase{"NegativePositiveNegativeExclusive",
                                                       -2,
                                                       false,
                                                       1,
                                                       false,
                                                       {2, 3, 4, 5},
                                                       {1, 2, 3, 4, 5},
                                                       {5},
                                                       {4, 5}},
                                           CleanupCase{"PositiveInclusivePositiveInclusive",
                                                       0,
                                                       true,
                                                       1,
                                                       true,
                                                       {1, 2, 3, 4, 5},
                                                       {2, 3, 4, 5},
                                                       {4, 5},
                                                       {5}},
                                           CleanupCase{"PositiveExclusivePositiveExclusive",
                                                       -1,
                                                       false,
                                                       2,
                                                       false,
                                                       {1, 2, 3, 4, 5},
                                                       {2, 3, 4, 5},
                                                       {4, 5},
                                                       {5}}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(FlinkIntervalJoinLateTest, DiscardsLateData) {
  Harness h(-1, true, 1, true);
  h.Element1(1).Element2(1).Element1(2).Element2(2).Element1(3).Element2(3);
  h.Watermark1(3).Watermark2(3);
  h.Element1(1);  // late: not joined again
  h.Element1(4).Element2(4).Element1(5).Element2(5);
  EXPECT_EQ(h.SortedPairs(), Sorted({{1, 1},
                                     {1, 2},
                                     {2, 1},
                                     {2, 2},
                                     {2, 3},
                                     {3, 2},
                                     {3, 3},
                                     {3, 4},
                                     {4, 3},
                                     {4, 4},
                                     {4, 5},
                                     {5, 4},
                                     {5, 5}}));
}

TEST(FlinkIntervalJoinLateTest, LateDataOfEitherSideIsSetAside) {
  Harness h(-1, true, 1, true);
  h.Element1(3).Element2(3).Watermark1(3).Watermark2(3);
  h.Element1(4).Element2(4);
  h.Element1(1);  // late on the left
  h.Element2(2);  // late on the right
  h.Element1(5).Element2(5);
  EXPECT_EQ(h.SortedPairs(), Sorted({{3, 3}, {3, 4}, {4, 3}, {4, 4}, {4, 5}, {5, 4}, {5, 5}}));
  const std::vector<std::pair<JoinSide, int64_t>> late = {{JoinSide::kLeft, 1},
                                                          {JoinSide::kRight, 2}};
  EXPECT_EQ(h.late, late);
}

// Beyond Flink.

TEST(IntervalJoinStateTest, AnElementAtTheWatermarkIsNotLateAndStillFindsItsPartner) {
  // left 0 with [0, 10] may pair with a right at 10 for as long as a right at 10 can arrive:
  // until the watermark is above 10.
  Harness h(0, true, 10, true);
  h.Element1(0);
  h.state().Advance(10);
  EXPECT_EQ(h.Buffer(JoinSide::kLeft), std::vector<int64_t>{0});
  h.Element2(10);
  EXPECT_EQ(h.SortedPairs(), Sorted({{0, 10}}));
  h.state().Advance(11);
  EXPECT_TRUE(h.Buffer(JoinSide::kLeft).empty());
}

TEST(IntervalJoinStateTest, ElementsLeaveInCleanupTimeOrderThenArrivalWithTheirMatchedFlag) {
  Harness h(-2, true, 2, true);  // left leaves after ts + 2, right after ts + 2
  h.Element1(5, "a").Element1(1, "b").Element2(3, "a").Element2(2, "c").Element1(4, "c");
  // pairs: right a3 with left a5; left c4 with right c2.
  EXPECT_EQ(h.SortedPairs(), Sorted({{4, 2}, {5, 3}}));
  h.state().Advance(100);
  std::vector<std::string> order;
  std::vector<bool> matched;
  for (const auto& l : h.out.left) {
    order.push_back(l.tag);
    matched.push_back(l.matched);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"lhs1", "rhs2", "rhs3", "lhs4", "lhs5"}));
  EXPECT_EQ(matched, (std::vector<bool>{false, true, true, true, true}));
}

TEST(IntervalJoinStateTest, OutOfOrderArrivalsAreProbedAndCleanedInTimestampOrder) {
  Harness h(0, true, 0, true);  // same timestamp only
  for (int64_t ts : {10, 12, 11, 15, 13}) h.Element1(ts);
  for (int64_t ts : {13, 11, 14}) h.Element2(ts);
  EXPECT_EQ(h.SortedPairs(), Sorted({{11, 11}, {13, 13}}));
  h.state().Advance(13);  // leaves: everything below 13
  EXPECT_EQ(h.Buffer(JoinSide::kLeft), (std::vector<int64_t>{13, 15}));
  EXPECT_EQ(h.Buffer(JoinSide::kRight), (std::vector<int64_t>{13, 14}));
  std::vector<int64_t> left_order;
  for (const auto& l : h.out.left) left_order.push_back(l.ts);
  EXPECT_EQ(left_order, (std::vector<int64_t>{10, 11, 11, 12}));
}

TEST(IntervalJoinStateTest, DrainLetsEverythingOutInOrderAndForgetsTheKeys) {
  Harness h(-5, true, 5, true);
  for (int64_t i = 0; i < 100; ++i) h.Element1(i, "k" + std::to_string(i % 7));
  EXPECT_EQ(h.state().keys(), 7u);
  EXPECT_EQ(h.state().size(JoinSide::kLeft), 100u);
  h.state().Drain();
  EXPECT_EQ(h.state().size(JoinSide::kLeft), 0u);
  EXPECT_EQ(h.state().keys(), 0u);
  ASSERT_EQ(h.out.left.size(), 100u);
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(h.out.left[i].ts, i);
}

TEST(IntervalJoinStateTest, ManyKeysComeAndGoWithoutLosingAny) {
  // Unique keys (a show log id each): the key table grows, shrinks by backward shift, and every
  // pair is still found.
  Harness h(0, true, 3, true);
  for (int64_t i = 0; i < 5000; ++i) {
    h.Element1(i, "id" + std::to_string(i));
    h.Element2(i + 2, "id" + std::to_string(i));
    if (i % 10 == 0) h.state().Advance(i - 3);
  }
  EXPECT_EQ(h.out.pairs.size(), 5000u);
  h.state().Drain();
  EXPECT_EQ(h.state().keys(), 0u);
  EXPECT_EQ(h.out.left.size(), 10000u);
}

// A batch row added under its integer key (IntKey) pairs with a tuple whose key is that integer
// as a Value, and with nothing else: a string "7", another integer.
TEST(IntervalJoinStateTest, ARowsIntegerKeyIsTheSameKeyAsThatIntegerInATuple) {
  Recorder out;
  IntervalJoinState state(IntervalBounds{-5, 5}, out);
  const topology::StreamSchema schema = KeyTsTag();
  topology::RowBatch rows;
  rows.Append(&schema, {Value(int64_t{7}), Value(int64_t{10}), Value("lhs10")});
  rows.Append(&schema, {Value(int64_t{-7}), Value(int64_t{11}), Value("lhs11")});
  rows.Append(&schema, {Value(int64_t{-7}), Value(int64_t{13}), Value("rhs13")});
  state.Add(JoinSide::kLeft, IntKey{7}, 10, rows[0], 1);
  state.Add(JoinSide::kLeft, IntKey{-7}, 11, rows[1], 1);
  const auto add_tuple = [&](const Value& key, int64_t ts) {
    const KeyRef ref = {&key};
    state.Add(JoinSide::kRight, ref, HashKey(ref), ts,
              Tuple(&schema, 2, {key, Value(ts), Value("rhs" + std::to_string(ts))}));
  };
  add_tuple(Value(int64_t{7}), 12);
  add_tuple(Value(std::string("7")), 12);
  add_tuple(Value(int64_t{8}), 12);
  state.Add(JoinSide::kRight, IntKey{-7}, 13, rows[2], 1);
  EXPECT_EQ(out.pairs, (std::vector<Pair>{{10, 12}, {11, 13}}));
  EXPECT_EQ(state.keys(), 4u);  // 7, -7, "7", 8
  state.Drain();
  EXPECT_EQ(out.left.size(), 6u);
}

// A sink that reads only `tag`: what it gets of the rows that leave.
struct TagReader : IntervalJoinSink {
  std::vector<std::string> left;  // per row that leaves: key / ts / tag, "null" where absent
  void Joined(const Tuple&, const Tuple&, int64_t) override {}
  void Left(JoinSide, Tuple& t, int64_t, bool) override {
    std::string row;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (i > 0) row += "/";
      const Value& v = t.GetValue(i);
      row += v.IsNull() ? "null" : v.IsString() ? v.AsString() : std::to_string(v.AsInt());
    }
    left.push_back(row);
  }
  std::vector<uint8_t> FieldsRead(const topology::StreamSchema&) const override {
    return {0, 0, 1};
  }
};

TEST(IntervalJoinStateTest, AnUntrackedRowIsHeldWithOnlyTheFieldsTheSinkReads) {
  TagReader out;
  IntervalJoinState state(IntervalBounds{-5, 5}, out);
  const topology::StreamSchema schema = KeyTsTag();
  topology::RowBatch rows;
  const topology::AckMeta::Anchor anchor{11, 12};
  rows.Append(&schema, {Value(int64_t{7}), Value(int64_t{10}), Value("untracked row")}, {});
  rows.Append(&schema, {Value(int64_t{7}), Value(int64_t{11}), Value("tracked row")},
              std::span(&anchor, 1));
  state.Add(JoinSide::kLeft, IntKey{7}, 10, rows[0], 1);
  state.Add(JoinSide::kLeft, IntKey{7}, 11, rows[1], 1);
  const Value key(int64_t{7});
  const KeyRef ref = {&key};
  state.Add(JoinSide::kRight, ref, HashKey(ref), 12,
            Tuple(&schema, 2, {key, Value(int64_t{12}), Value("untracked tuple")}));
  state.Drain();
  // Tracked, the row stays whole: it is acked as itself.
  EXPECT_EQ(out.left, (std::vector<std::string>{"null/null/untracked row", "7/11/tracked row",
                                                "null/null/untracked tuple"}));
}

TEST(IntervalJoinStateTest, CleanupTimesFollowFlink) {
  Recorder r;
  IntervalJoinState s({-3, 7}, r);
  EXPECT_EQ(s.CleanupTime(JoinSide::kLeft, 100), 107);
  EXPECT_EQ(s.CleanupTime(JoinSide::kRight, 100), 103);
  IntervalJoinState neg({-9, -2}, r);
  EXPECT_EQ(neg.CleanupTime(JoinSide::kLeft, 100), 100);  // max(upper, 0)
  EXPECT_EQ(neg.CleanupTime(JoinSide::kRight, 100), 109);
  IntervalJoinState far({0, std::numeric_limits<int64_t>::max()}, r);
  EXPECT_EQ(far.CleanupTime(JoinSide::kLeft, 5), std::numeric_limits<int64_t>::max());
}

// Beyond the bolt's shapes: the symmetric join's options, and the state's own bookkeeping.

// Adds [key, ts, tag] elements to a state built with `options`, recording what it reports.
class OptionsHarness {
 public:
  explicit OptionsHarness(const IntervalJoinOptions& options)
      : state_(std::make_unique<IntervalJoinState>(out, options)) {}
  void Add(JoinSide side, int64_t ts, const std::string& key, const std::string& tag) {
    Tuple t(&schema_, 1, topology::Values{Value(key), Value(ts), Value(tag)});
    const Value k(key);
    const KeyRef ref = {&k};
    state_->Add(side, ref, HashKey(ref), ts, t);
  }
  std::vector<std::string> LeftTags() const {
    std::vector<std::string> tags;
    for (const auto& l : out.left) tags.push_back(l.tag);
    return tags;
  }
  IntervalJoinState& state() { return *state_; }

  Recorder out;

 private:
  const topology::StreamSchema schema_ = KeyTsTag();
  std::unique_ptr<IntervalJoinState> state_;
};

TEST(IntervalJoinStateTest, ASideThatNeverLeavesDrainsInArrivalOrderAfterTheOthers) {
  IntervalJoinOptions o;
  o.bounds = {-100, 100};
  o.stay[0] = IntervalJoinOptions::kNeverLeaves;
  o.stay[1] = 0;
  OptionsHarness h(o);
  h.Add(JoinSide::kLeft, 5, "a", "l5");
  h.Add(JoinSide::kLeft, 3, "b", "l3");
  h.Add(JoinSide::kRight, 7, "a", "r7");
  h.Add(JoinSide::kLeft, 4, "a", "l4");
  h.Add(JoinSide::kRight, 2, "b", "r2");
  h.state().Advance(6);  // r2 leaves; the left side stays whatever the watermark
  EXPECT_EQ(h.LeftTags(), (std::vector<std::string>{"r2"}));
  h.state().Drain();
  EXPECT_EQ(h.LeftTags(), (std::vector<std::string>{"r2", "r7", "l5", "l3", "l4"}));
  EXPECT_EQ(h.state().size(JoinSide::kLeft), 0u);
  EXPECT_EQ(h.state().keys(), 0u);
}

TEST(IntervalJoinStateTest, CleanupTimesSaturatedLowLeaveFirstInArrivalOrder) {
  constexpr int64_t kLow = std::numeric_limits<int64_t>::min();
  IntervalJoinOptions o;
  o.bounds = {-100, 100};
  o.stay[0] = 0;
  o.stay[1] = -10;  // the symmetric join's stays may be negative
  OptionsHarness h(o);
  h.Add(JoinSide::kRight, kLow + 5, "a", "r5");
  h.Add(JoinSide::kRight, kLow + 2, "b", "r2");
  h.Add(JoinSide::kRight, kLow + 4, "a", "r4");
  h.Add(JoinSide::kRight, 100, "a", "r100");  // leaves once the watermark is above 90
  h.Add(JoinSide::kLeft, kLow + 1, "c", "l1");
  h.state().Advance(kLow + 2);
  EXPECT_EQ(h.LeftTags(), (std::vector<std::string>{"r5", "r2", "r4", "l1"}));
  h.state().Advance(91);
  EXPECT_EQ(h.LeftTags(), (std::vector<std::string>{"r5", "r2", "r4", "l1", "r100"}));
}

TEST(IntervalJoinStateTest, RenumberingArrivalsKeepsTheOrderElementsLeaveIn) {
  // The same elements, out of order across keys and sides, with arrival numbers renumbered
  // every few arrivals and never: the same pairs and the same leaving order.
  auto run = [](uint32_t renumber_at) {
    IntervalJoinOptions o;
    o.bounds = {-3, 3};
    o.stay[0] = 3;
    o.stay[1] = 3;
    o.renumber_at = renumber_at;
    OptionsHarness h(o);
    for (int64_t i = 0; i < 300; ++i) {
      const int64_t ts = i % 7 == 6 ? i - 5 : i;
      const std::string key = "k" + std::to_string(i % 5);
      h.Add(i % 3 == 0 ? JoinSide::kRight : JoinSide::kLeft, ts, key, std::to_string(i));
      if (i % 4 == 0) h.state().Advance(i - 8);
    }
    h.state().Drain();
    return std::make_pair(h.out.pairs, h.LeftTags());
  };
  const auto plain = run(uint32_t{1} << 31);
  EXPECT_EQ(plain.second.size(), 300u);
  EXPECT_EQ(run(16), plain);
  EXPECT_EQ(run(64), plain);
}

}  // namespace
}  // namespace tempest::bolts

// ChangelogJoinState: Flink's StreamingJoinOperatorTest sequences (inner, left, right and full,
// with state retention off and on, per-side TTLs, processing time injected), with their exact
// ordered outputs, and the full outer join with several rows per key (Flink's legacy harness
// test), with and without a condition on pairs, plus identical duplicates counted per copy.
// Data: docs/notes/symmetric-hash-join-reference.md, A.7-A.8. Then active TTL expiry (keys never
// touched again, refreshes by writes and by association changes, the exact boundary, time going
// back), and the packed storage: every value type comes back as it went in, with its stream; row
// identity is Value's ==; rows removed from the middle of a key keep the others' order; many
// keys emptied and recycled.
#include "bolts/join/changelog_join_state.h"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bolts/expression/join_condition.h"
#include "topology/stream_schema.h"

namespace tempest::bolts {
namespace {

using topology::Fields;
using topology::Tuple;
using topology::Value;
using topology::Values;

std::string Row(const Tuple* t) {
  if (t == nullptr) return "-";
  std::string out;
  for (const Value& v : t->GetValues()) {
    out += (out.empty() ? "" : ",") + (v.IsString() ? v.AsString() : v.ToString());
  }
  return out;
}

struct Recorder : ChangelogJoinSink {
  std::vector<std::string> out;
  void Emit(RowKind kind, const Tuple* left, const Tuple* right) override {
    out.push_back(std::string(RowKindName(kind)) + " " + Row(left) + "|" + Row(right));
  }
  std::vector<std::string> Take() { return std::exchange(out, {}); }
};

// Flink's harness: left (order_id, line_order_id, shipping_address), right (line_order_id0,
// line_order_ship_mode), joined on line_order_id; both sides keyed by it (unique).
class FlinkHarness {
 public:
  FlinkHarness(bool left_outer, bool right_outer, int64_t left_ttl = 0, int64_t right_ttl = 0,
               bool unique = true) {
    left_.fields = std::make_shared<const Fields>(Fields{"order_id", "line_order_id", "addr"});
    right_.fields = std::make_shared<const Fields>(Fields{"line_order_id0", "mode"});
    state_ = std::make_unique<ChangelogJoinState>(ChangelogSide{left_outer, unique, left_ttl, -1},
                                                  ChangelogSide{right_outer, unique, right_ttl, -1},
                                                  nullptr, rec);
  }
  std::vector<std::string> L(int64_t now, const char* kind, Values row) {
    return Send(JoinSide::kLeft, now, kind, std::move(row), 1);
  }
  std::vector<std::string> R(int64_t now, const char* kind, Values row) {
    return Send(JoinSide::kRight, now, kind, std::move(row), 0);
  }
  void Expire(int64_t now) { state_->Expire(now); }
  std::size_t rows(JoinSide side) const { return state_->rows(side); }
  std::size_t keys() const { return state_->keys(); }
  Recorder rec;

 private:
  std::vector<std::string> Send(JoinSide side, int64_t now, const char* kind, Values values,
                                std::size_t key_field) {
    const Tuple& t =
        tuples_.emplace_back(side == JoinSide::kLeft ? &left_ : &right_, 1, std::move(values));
    const KeyRef key = {&t.GetValue(key_field)};
    state_->Process(side, *ParseRowKind(kind), key, t, now);
    return rec.Take();
  }
  topology::StreamSchema left_, right_;
  std::deque<Tuple> tuples_;
  std::unique_ptr<ChangelogJoinState> state_;
};

using Out = std::vector<std::string>;
const Out kNothing;
const char* const A1 = "A1";
const char* const A2 = "A2";
const char* const A3 = "A3";

TEST(FlinkStreamingJoinTest, InnerJoinWithDifferentStateRetentionTime) {
  FlinkHarness h(false, false, 4000, 1000);
  EXPECT_EQ(h.L(1, "+I", {"O", "K1", A1}), kNothing);
  EXPECT_EQ(h.L(1, "+I", {"O", "K2", A1}), kNothing);
  EXPECT_EQ(h.R(1, "+I", {"K2", "AIR"}), Out{"+I O,K2,A1|K2,AIR"});
  EXPECT_EQ(h.L(3000, "+U", {"O", "K2", A2}), kNothing);  // right K2 expired at 1001
  EXPECT_EQ(h.R(3000, "+U", {"K2", "SHIP"}), Out{"+U O,K2,A2|K2,SHIP"});
  EXPECT_EQ(h.R(4001, "+I", {"K1", "TRUCK"}), kNothing);  // left K1 expired at 4001
  EXPECT_EQ(h.R(4001, "-D", {"K2", "SHIP"}), Out{"-D O,K2,A2|K2,SHIP"});
  EXPECT_EQ(h.R(7000, "+I", {"K2", "RAIL"}), kNothing);  // left K2 expired at 7000
}

TEST(FlinkStreamingJoinTest, InnerJoinWithStateRetentionDisabled) {
  FlinkHarness h(false, false);
  EXPECT_EQ(h.L(1, "+I", {"O", "K1", A1}), kNothing);
  EXPECT_EQ(h.L(1, "+I", {"O", "K2", A1}), kNothing);
  EXPECT_EQ(h.R(1, "+I", {"K2", "AIR"}), Out{"+I O,K2,A1|K2,AIR"});
  EXPECT_EQ(h.L(3000, "+U", {"O", "K2", A2}), Out{"+U O,K2,A2|K2,AIR"});
  EXPECT_EQ(h.R(3000, "+U", {"K2", "SHIP"}), Out{"+U O,K2,A2|K2,SHIP"});
  EXPECT_EQ(h.R(4001, "+I", {"K1", "TRUCK"}), Out{"+I O,K1,A1|K1,TRUCK"});
  EXPECT_EQ(h.R(4001, "-D", {"K2", "SHIP"}), Out{"-D O,K2,A2|K2,SHIP"});
  EXPECT_EQ(h.R(7000, "+I", {"K2", "RAIL"}), Out{"+I O,K2,A2|K2,RAIL"});
}

TEST(FlinkStreamingJoinTest, InnerJoinWithSameStateRetentionTime) {
  FlinkHarness h(false, false, 4000, 4000);
  EXPECT_EQ(h.L(1, "+I", {"O", "K1", A1}), kNothing);
  EXPECT_EQ(h.L(1, "+I", {"O", "K2", A1}), kNothing);
  EXPECT_EQ(h.R(1, "+I", {"K2", "AIR"}), Out{"+I O,K2,A1|K2,AIR"});
  EXPECT_EQ(h.L(4000, "+U", {"O", "K2", A2}), Out{"+U O,K2,A2|K2,AIR"});
  EXPECT_EQ(h.R(4001, "+I", {"K1", "TRUCK"}), kNothing);
  EXPECT_EQ(h.R(7999, "+U", {"K2", "TRUCK"}), Out{"+U O,K2,A2|K2,TRUCK"});
  EXPECT_EQ(h.R(8000, "+U", {"K2", "RAIL"}), kNothing);
}

TEST(FlinkStreamingJoinTest, LeftOuterJoinWithDifferentStateRetentionTime) {
  FlinkHarness h(true, false, 4000, 1000);
  EXPECT_EQ(h.L(1, "+I", {"O", "K1", A1}), Out{"+I O,K1,A1|-"});
  EXPECT_EQ(h.L(1, "+I", {"O", "K2", A1}), Out{"+I O,K2,A1|-"});
  EXPECT_EQ(h.R(1, "+I", {"K2", "AIR"}), (Out{"-D O,K2,A1|-", "+I O,K2,A1|K2,AIR"}));
  EXPECT_EQ(h.L(3000, "+U", {"O", "K2", A2}), Out{"+I O,K2,A2|-"});
  EXPECT_EQ(h.R(3000, "+U", {"K2", "SHIP"}), (Out{"-D O,K2,A2|-", "+I O,K2,A2|K2,SHIP"}));
  EXPECT_EQ(h.R(4001, "+I", {"K1", "TRUCK"}), kNothing);
  // The right row's own state expired, yet the left state answers the retraction.
  EXPECT_EQ(h.R(4001, "-D", {"K2", "SHIP"}), (Out{"-D O,K2,A2|K2,SHIP", "+I O,K2,A2|-"}));
  EXPECT_EQ(h.R(8001, "+I", {"K2", "RAIL"}), kNothing);  // left K2 last written at 4001
}

TEST(FlinkStreamingJoinTest, LeftOuterJoinWithStateRetentionDisabled) {
  FlinkHarness h(true, false);
  EXPECT_EQ(h.L(1, "+I", {"O", "K1", A1}), Out{"+I O,K1,A1|-"});
  EXPECT_EQ(h.L(1, "+I", {"O", "K2", A1}), Out{"+I O,K2,A1|-"});
  EXPECT_EQ(h.R(1, "+I", {"K2", "AIR"}), (Out{"-D O,K2,A1|-", "+I O,K2,A1|K2,AIR"}));
  EXPECT_EQ(h.L(3000, "+U", {"O", "K2", A2}), Out{"+I O,K2,A2|K2,AIR"});
  EXPECT_EQ(h.R(3000, "+U", {"K2", "SHIP"}), Out{"+I O,K2,A2|K2,SHIP"});
  EXPECT_EQ(h.R(4001, "+I", {"K1", "TRUCK"}), (Out{"-D O,K1,A1|-", "+I O,K1,A1|K1,TRUCK"}));
  // Flink's newest rule: the replacing +U did not count twice, so the padded row comes back.
  EXPECT_EQ(h.R(8001, "-D", {"K2", "SHIP"}), (Out{"-D O,K2,A2|K2,SHIP", "+I O,K2,A2|-"}));
}

TEST(FlinkStreamingJoinTest, RightOuterJoinWithDifferentStateRetentionTime) {
  FlinkHarness h(false, true, 4000, 1000);
  EXPECT_EQ(h.L(1, "+I", {"O", "K1", A1}), kNothing);
  EXPECT_EQ(h.L(1, "+I", {"O", "K2", A1}), kNothing);
  EXPECT_EQ(h.R(4001, "+I", {"K2", "AIR"}), Out{"+I -|K2,AIR"});
  EXPECT_EQ(h.R(4001, "+I", {"K1", "TRUCK"}), Out{"+I -|K1,TRUCK"});
  EXPECT_EQ(h.L(5001, "+U", {"O", "K2", A2}), kNothing);
  EXPECT_EQ(h.R(5001, "+U", {"K2", "SHIP"}), Out{"+I O,K2,A2|K2,SHIP"});
  EXPECT_EQ(h.R(5001, "+U", {"K1", "RAIL"}), Out{"+I -|K1,RAIL"});
  EXPECT_EQ(h.L(6000, "+U", {"O", "K1", A3}), (Out{"-D -|K1,RAIL", "+I O,K1,A3|K1,RAIL"}));
  EXPECT_EQ(h.L(7000, "-D", {"O", "K1", A3}), kNothing);
}

TEST(FlinkStreamingJoinTest, RightOuterJoinWithStateRetentionDisabled) {
  FlinkHarness h(false, true);
  EXPECT_EQ(h.L(1, "+I", {"O", "K1", A1}), kNothing);
  EXPECT_EQ(h.L(1, "+I", {"O", "K2", A1}), kNothing);
  EXPECT_EQ(h.R(4001, "+I", {"K2", "AIR"}), Out{"+I O,K2,A1|K2,AIR"});
  EXPECT_EQ(h.R(10000, "+I", {"K1", "TRUCK"}), Out{"+I O,K1,A1|K1,TRUCK"});
  EXPECT_EQ(h.L(20000, "+U", {"O", "K2", A2}), Out{"+I O,K2,A2|K2,AIR"});
}

// FLINK-40681's reproducers: an inner side's bare +U or repeated +I, then -D, must bring the
// outer row's padded row back.
TEST(FlinkStreamingJoinTest, LeftOuterInnerSideUpdateAfterThenDeleteRestoresPadding) {
  FlinkHarness h(true, false);
  EXPECT_EQ(h.L(0, "+I", {"O", "K1", A1}), Out{"+I O,K1,A1|-"});
  EXPECT_EQ(h.R(0, "+I", {"K1", "AIR"}), (Out{"-D O,K1,A1|-", "+I O,K1,A1|K1,AIR"}));
  EXPECT_EQ(h.R(0, "+U", {"K1", "SHIP"}), Out{"+I O,K1,A1|K1,SHIP"});
  EXPECT_EQ(h.R(0, "-D", {"K1", "SHIP"}), (Out{"-D O,K1,A1|K1,SHIP", "+I O,K1,A1|-"}));
}

TEST(FlinkStreamingJoinTest, LeftOuterInnerSideDuplicateInsertThenDeleteRestoresPadding) {
  FlinkHarness h(true, false);
  EXPECT_EQ(h.L(0, "+I", {"O", "K1", A1}), Out{"+I O,K1,A1|-"});
  EXPECT_EQ(h.R(0, "+I", {"K1", "AIR"}), (Out{"-D O,K1,A1|-", "+I O,K1,A1|K1,AIR"}));
  EXPECT_EQ(h.R(0, "+I", {"K1", "AIR"}), Out{"+I O,K1,A1|K1,AIR"});
  EXPECT_EQ(h.R(0, "-D", {"K1", "AIR"}), (Out{"-D O,K1,A1|K1,AIR", "+I O,K1,A1|-"}));
}

TEST(FlinkStreamingJoinTest, RightOuterInnerSideUpdateAfterThenDeleteRestoresPadding) {
  FlinkHarness h(false, true);
  EXPECT_EQ(h.R(0, "+I", {"K1", "AIR"}), Out{"+I -|K1,AIR"});
  EXPECT_EQ(h.L(0, "+I", {"O", "K1", A1}), (Out{"-D -|K1,AIR", "+I O,K1,A1|K1,AIR"}));
  EXPECT_EQ(h.L(0, "+U", {"O", "K1", A2}), Out{"+I O,K1,A2|K1,AIR"});
  EXPECT_EQ(h.L(0, "-D", {"O", "K1", A2}), (Out{"-D O,K1,A2|K1,AIR", "+I -|K1,AIR"}));
}

TEST(FlinkStreamingJoinTest, FullOuterEitherSideUpdateAfterThenDeleteRestoresPadding) {
  FlinkHarness right(true, true);
  EXPECT_EQ(right.L(0, "+I", {"O", "K1", A1}), Out{"+I O,K1,A1|-"});
  EXPECT_EQ(right.R(0, "+I", {"K1", "AIR"}), (Out{"-D O,K1,A1|-", "+I O,K1,A1|K1,AIR"}));
  EXPECT_EQ(right.R(0, "+U", {"K1", "SHIP"}), Out{"+I O,K1,A1|K1,SHIP"});
  EXPECT_EQ(right.R(0, "-D", {"K1", "SHIP"}), (Out{"-D O,K1,A1|K1,SHIP", "+I O,K1,A1|-"}));
  FlinkHarness left(true, true);
  EXPECT_EQ(left.R(0, "+I", {"K1", "AIR"}), Out{"+I -|K1,AIR"});
  EXPECT_EQ(left.L(0, "+I", {"O", "K1", A1}), (Out{"-D -|K1,AIR", "+I O,K1,A1|K1,AIR"}));
  EXPECT_EQ(left.L(0, "+U", {"O", "K1", A2}), Out{"+I O,K1,A2|K1,AIR"});
  EXPECT_EQ(left.L(0, "-D", {"O", "K1", A2}), (Out{"-D O,K1,A2|K1,AIR", "+I -|K1,AIR"}));
}

// Flink's legacy full outer join harness test: rows (key, str), several per key, no unique key.
class FullOuterDuplicates : public ::testing::Test {
 protected:
  explicit FullOuterDuplicates(const char* condition = nullptr) {
    schema_.fields = std::make_shared<const Fields>(Fields{"key", "str"});
    if (condition != nullptr) {
      const ExprInput l{"l", "left", {*schema_.fields}}, r{"r", "right", {*schema_.fields}};
      pairs_ = std::make_unique<BoundExpression>(SplitJoinCondition(condition, l, r).pairs->bound);
    }
    state_ = std::make_unique<ChangelogJoinState>(
        ChangelogSide{true, false, 0, -1}, ChangelogSide{true, false, 0, -1}, pairs_.get(), rec_);
  }
  Out L(const char* kind, int64_t key, const char* str) {
    return Send(JoinSide::kLeft, kind, key, str);
  }
  Out R(const char* kind, int64_t key, const char* str) {
    return Send(JoinSide::kRight, kind, key, str);
  }

  const ChangelogJoinState& state() const { return *state_; }

 private:
  Out Send(JoinSide side, const char* kind, int64_t key, const char* str) {
    const Tuple& t = tuples_.emplace_back(&schema_, 1, Values{key, str});
    const KeyRef k = {&t.GetValue(0)};
    state_->Process(side, *ParseRowKind(kind), k, t, 0);
    return rec_.Take();
  }
  topology::StreamSchema schema_;
  std::unique_ptr<BoundExpression> pairs_;
  Recorder rec_;
  std::deque<Tuple> tuples_;
  std::unique_ptr<ChangelogJoinState> state_;
};

TEST_F(FullOuterDuplicates, WithoutACondition) {
  EXPECT_EQ(L("+I", 1, "bbb"), Out{"+I 1,bbb|-"});
  EXPECT_EQ(L("+I", 1, "ccc"), Out{"+I 1,ccc|-"});
  EXPECT_EQ(R("+I", 2, "bbb"), Out{"+I -|2,bbb"});
  EXPECT_EQ(R("+I", 2, "ccc"), Out{"+I -|2,ccc"});
  EXPECT_EQ(L("+I", 2, "aaa"),
            (Out{"-D -|2,bbb", "-D -|2,ccc", "+I 2,aaa|2,bbb", "+I 2,aaa|2,ccc"}));
  EXPECT_EQ(L("+I", 2, "ddd"), (Out{"+I 2,ddd|2,bbb", "+I 2,ddd|2,ccc"}));
  EXPECT_EQ(R("+I", 1, "aaa"),
            (Out{"-D 1,bbb|-", "-D 1,ccc|-", "+I 1,bbb|1,aaa", "+I 1,ccc|1,aaa"}));
  EXPECT_EQ(R("+I", 1, "ddd"), (Out{"+I 1,bbb|1,ddd", "+I 1,ccc|1,ddd"}));
  EXPECT_EQ(L("-D", 2, "aaa"), (Out{"-D 2,aaa|2,bbb", "-D 2,aaa|2,ccc"}));
  EXPECT_EQ(L("-D", 2, "ddd"),
            (Out{"-D 2,ddd|2,bbb", "-D 2,ddd|2,ccc", "+I -|2,bbb", "+I -|2,ccc"}));
  EXPECT_EQ(R("-D", 1, "aaa"), (Out{"-D 1,bbb|1,aaa", "-D 1,ccc|1,aaa"}));
  EXPECT_EQ(R("-D", 1, "ddd"),
            (Out{"-D 1,bbb|1,ddd", "-D 1,ccc|1,ddd", "+I 1,bbb|-", "+I 1,ccc|-"}));
}

TEST_F(FullOuterDuplicates, IdenticalRowsAreCountedAndPaddedPerCopy) {
  EXPECT_EQ(L("+I", 1, "bbb"), Out{"+I 1,bbb|-"});
  EXPECT_EQ(L("+I", 1, "bbb"), Out{"+I 1,bbb|-"});
  EXPECT_EQ(R("+I", 1, "aaa"),
            (Out{"-D 1,bbb|-", "-D 1,bbb|-", "+I 1,bbb|1,aaa", "+I 1,bbb|1,aaa"}));
  EXPECT_EQ(R("-D", 1, "aaa"),
            (Out{"-D 1,bbb|1,aaa", "-D 1,bbb|1,aaa", "+I 1,bbb|-", "+I 1,bbb|-"}));
  EXPECT_EQ(L("-D", 1, "bbb"), Out{"-D 1,bbb|-"});  // one copy left
  EXPECT_EQ(L("-D", 1, "bbb"), Out{"-D 1,bbb|-"});
  EXPECT_EQ(R("+I", 1, "zzz"), Out{"+I -|1,zzz"});  // nothing left on the left
  EXPECT_EQ(state().keys(), 1u);
  EXPECT_EQ(R("-D", 1, "zzz"), Out{"-D -|1,zzz"});
  EXPECT_EQ(state().keys(), 0u);  // a key with nothing left is forgotten
  EXPECT_EQ(state().rows(JoinSide::kLeft) + state().rows(JoinSide::kRight), 0u);
}

class FullOuterDuplicatesWithCondition : public FullOuterDuplicates {
 protected:
  FullOuterDuplicatesWithCondition() : FullOuterDuplicates("left:str < right:str") {}
};

TEST_F(FullOuterDuplicatesWithCondition, PairsFailingTheConditionAreNoMatch) {
  EXPECT_EQ(L("+I", 1, "bbb"), Out{"+I 1,bbb|-"});
  EXPECT_EQ(L("+I", 1, "ccc"), Out{"+I 1,ccc|-"});
  EXPECT_EQ(R("+I", 2, "bbb"), Out{"+I -|2,bbb"});
  EXPECT_EQ(R("+I", 2, "ccc"), Out{"+I -|2,ccc"});
  EXPECT_EQ(L("+I", 2, "aaa"),
            (Out{"-D -|2,bbb", "-D -|2,ccc", "+I 2,aaa|2,bbb", "+I 2,aaa|2,ccc"}));
  EXPECT_EQ(L("+I", 2, "ddd"), Out{"+I 2,ddd|-"});  // same key, no pair passes
  EXPECT_EQ(R("+I", 1, "aaa"), Out{"+I -|1,aaa"});  // bbb, ccc are not < aaa
  EXPECT_EQ(R("+I", 1, "ddd"),
            (Out{"-D 1,bbb|-", "-D 1,ccc|-", "+I 1,bbb|1,ddd", "+I 1,ccc|1,ddd"}));
  EXPECT_EQ(L("-D", 2, "aaa"),
            (Out{"-D 2,aaa|2,bbb", "-D 2,aaa|2,ccc", "+I -|2,bbb", "+I -|2,ccc"}));
  EXPECT_EQ(R("-D", 1, "ddd"),
            (Out{"-D 1,bbb|1,ddd", "-D 1,ccc|1,ddd", "+I 1,bbb|-", "+I 1,ccc|-"}));
}

// ---- Active TTL expiry.

constexpr JoinSide kL = JoinSide::kLeft;
constexpr JoinSide kR = JoinSide::kRight;

TEST(ChangelogJoinStateTtlTest, AKeyNeverTouchedAgainExpiresOnAnotherKeysRow) {
  FlinkHarness h(false, false, 1000, 1000);
  EXPECT_EQ(h.L(0, "+I", {"O", "K1", A1}), kNothing);
  EXPECT_EQ(h.R(0, "+I", {"K9", "AIR"}), kNothing);
  EXPECT_EQ(h.L(999, "+I", {"O", "K2", A1}), kNothing);
  EXPECT_EQ(h.rows(kL), 2u);  // K1 lives until 1000
  EXPECT_EQ(h.rows(kR), 1u);
  EXPECT_EQ(h.keys(), 3u);
  EXPECT_EQ(h.L(1000, "+I", {"O", "K3", A1}), kNothing);  // K1 and K9 go first
  EXPECT_EQ(h.rows(kL), 2u);
  EXPECT_EQ(h.rows(kR), 0u);
  EXPECT_EQ(h.keys(), 2u);
}

TEST(ChangelogJoinStateTtlTest, ExpireDropsRowsWithoutInputExactlyAtLastWritePlusTtl) {
  FlinkHarness h(true, false, 1000, 500);
  EXPECT_EQ(h.L(10, "+I", {"O", "K1", A1}), Out{"+I O,K1,A1|-"});
  EXPECT_EQ(h.R(20, "+I", {"K2", "AIR"}), kNothing);
  h.Expire(519);
  EXPECT_EQ(h.rows(kR), 1u);
  h.Expire(520);
  EXPECT_EQ(h.rows(kR), 0u);
  h.Expire(1009);
  EXPECT_EQ(h.rows(kL), 1u);
  EXPECT_EQ(h.keys(), 1u);
  h.Expire(1010);
  EXPECT_EQ(h.rows(kL), 0u);
  EXPECT_EQ(h.keys(), 0u);
  EXPECT_TRUE(h.rec.out.empty());  // silent: no retraction of the padded row
  EXPECT_EQ(h.R(1010, "+I", {"K1", "SHIP"}), kNothing);
}

TEST(ChangelogJoinStateTtlTest, AWriteExtendsARowsLife) {
  FlinkHarness unique(false, false, 1000, 1000);
  EXPECT_EQ(unique.L(0, "+I", {"O", "K1", A1}), kNothing);
  EXPECT_EQ(unique.L(600, "+U", {"O", "K1", A2}), kNothing);  // replaces: written at 600
  unique.Expire(1599);
  EXPECT_EQ(unique.rows(kL), 1u);
  EXPECT_EQ(unique.R(1599, "+I", {"K1", "AIR"}), Out{"+I O,K1,A2|K1,AIR"});
  unique.Expire(1600);
  EXPECT_EQ(unique.rows(kL), 0u);
  EXPECT_EQ(unique.rows(kR), 1u);

  FlinkHarness copies(false, false, 1000, 1000, /*unique=*/false);
  EXPECT_EQ(copies.L(0, "+I", {"O", "K1", A1}), kNothing);
  EXPECT_EQ(copies.L(0, "+I", {"O", "K1", A2}), kNothing);
  EXPECT_EQ(copies.L(600, "+I", {"O", "K1", A1}), kNothing);  // a second copy: written at 600
  copies.Expire(1000);
  EXPECT_EQ(copies.rows(kL), 1u);  // A2 went at 1000
  EXPECT_EQ(copies.R(1000, "+I", {"K1", "AIR"}), (Out{"+I O,K1,A1|K1,AIR", "+I O,K1,A1|K1,AIR"}));
  copies.Expire(1600);
  EXPECT_EQ(copies.rows(kL), 0u);
}

TEST(ChangelogJoinStateTtlTest, AnAssociationChangeIsAWriteOfTheOuterRow) {
  FlinkHarness h(true, false, 1000, 1000);
  EXPECT_EQ(h.L(0, "+I", {"O", "K1", A1}), Out{"+I O,K1,A1|-"});
  EXPECT_EQ(h.R(500, "+I", {"K1", "AIR"}), (Out{"-D O,K1,A1|-", "+I O,K1,A1|K1,AIR"}));
  h.Expire(1000);
  EXPECT_EQ(h.rows(kL), 1u);  // matched at 500: lives until 1500
  EXPECT_EQ(h.R(1200, "-D", {"K1", "AIR"}), (Out{"-D O,K1,A1|K1,AIR", "+I O,K1,A1|-"}));
  h.Expire(2199);
  EXPECT_EQ(h.rows(kL), 1u);  // lost its match at 1200: lives until 2200
  h.Expire(2200);
  EXPECT_EQ(h.rows(kL), 0u);
}

TEST(ChangelogJoinStateTtlTest, AnInnerJoinsMatchIsNoWrite) {
  FlinkHarness h(false, false, 1000, 1000);
  EXPECT_EQ(h.L(0, "+I", {"O", "K1", A1}), kNothing);
  EXPECT_EQ(h.R(500, "+I", {"K1", "AIR"}), Out{"+I O,K1,A1|K1,AIR"});
  h.Expire(1000);
  EXPECT_EQ(h.rows(kL), 0u);  // no association is kept: the left row's life is its own write
  EXPECT_EQ(h.rows(kR), 1u);
}

TEST(ChangelogJoinStateTtlTest, TimeGoingBackStillExpiresEachRowByItsOwnWrite) {
  FlinkHarness h(false, false, 1000, 1000, /*unique=*/false);
  EXPECT_EQ(h.L(5000, "+I", {"O", "K1", A1}), kNothing);
  EXPECT_EQ(h.L(100, "+I", {"O", "K1", A2}), kNothing);  // the clock went back
  h.Expire(1100);
  EXPECT_EQ(h.rows(kL), 1u);
  EXPECT_EQ(h.R(1100, "+I", {"K1", "AIR"}), Out{"+I O,K1,A1|K1,AIR"});
  h.Expire(6000);
  EXPECT_EQ(h.rows(kL), 0u);
}

// ---- Packed storage.

// Rows (k, v, w) on both sides, keyed by k, from two streams per side.
class Packed : public ::testing::Test {
 protected:
  Packed() {
    for (topology::StreamSchema& s : schemas_) {
      s.fields = std::make_shared<const Fields>(Fields{"k", "v", "w"});
    }
  }
  void Start(ChangelogSide left, ChangelogSide right) {
    state_ = std::make_unique<ChangelogJoinState>(left, right, nullptr, sink_);
  }
  // Emits as (kind, left values, right values, left schema, right schema).
  struct Seen {
    RowKind kind;
    std::optional<Values> left, right;
    const topology::StreamSchema* left_schema = nullptr;
    const topology::StreamSchema* right_schema = nullptr;
  };
  struct Sink : ChangelogJoinSink {
    std::vector<Seen> out;
    void Emit(RowKind kind, const Tuple* l, const Tuple* r) override {
      Seen& s = out.emplace_back(Seen{kind, {}, {}});
      if (l != nullptr) {
        s.left = l->GetValues();
        s.left_schema = l->schema();
      }
      if (r != nullptr) {
        s.right = r->GetValues();
        s.right_schema = r->schema();
      }
    }
  };
  std::vector<Seen> Send(JoinSide side, RowKind kind, Values v, int stream = 0, int64_t now = 0) {
    const int index = (side == kL ? 0 : 2) + stream;
    const Tuple& t = tuples_.emplace_back(&schemas_[index], index, std::move(v));
    const KeyRef key = {&t.GetValue(0)};
    state_->Process(side, kind, key, t, now);
    return std::exchange(sink_.out, {});
  }
  const ChangelogJoinState& state() const { return *state_; }
  ChangelogJoinState& mutable_state() { return *state_; }
  topology::StreamSchema schemas_[4];  // left a, left b, right a, right b

 private:
  Sink sink_;
  std::deque<Tuple> tuples_;
  std::unique_ptr<ChangelogJoinState> state_;
};

TEST_F(Packed, EveryValueTypeComesBackAsItWentInWithItsStream) {
  Start({false, false, 0, -1}, {false, false, 0, -1});
  const Values rich = {
      Value(),
      Value(topology::List{Value(true), Value(false), Value(-7), Value(int64_t{1} << 62),
                           Value(std::numeric_limits<int64_t>::min()), Value(-0.0), Value(2.5),
                           Value(std::string(300, 'z')),
                           Value(topology::Bytes{std::string("\x01\x00\xff", 3)}),
                           Value(topology::Map{{Value("a"), Value(1)}, {Value(2), Value()}})}),
      Value("")};
  Values row = rich;
  row.insert(row.begin(), Value("key"));
  row.pop_back();
  EXPECT_TRUE(Send(kL, RowKind::kInsert, row, 1).empty());
  const std::vector<Seen> out = Send(kR, RowKind::kInsert, {"key", 1, 2});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].left.has_value());
  EXPECT_EQ(*out[0].left, row);
  EXPECT_EQ(out[0].left_schema, &schemas_[1]);  // the stream it came on
  EXPECT_EQ(out[0].right_schema, &schemas_[2]);
  EXPECT_EQ(topology::ToString(*out[0].left), topology::ToString(row));  // -0.0 stays -0.0
}

TEST_F(Packed, RowIdentityIsValueEquality) {
  Start({true, false, 0, -1}, {false, false, 0, -1});
  EXPECT_EQ(Send(kL, RowKind::kInsert, {1, 0.0, "a"}).size(), 1u);
  EXPECT_EQ(Send(kL, RowKind::kInsert, {1, -0.0, "a"}).size(), 1u);  // == 0.0: a second copy
  EXPECT_EQ(state().rows(kL), 1u);
  EXPECT_EQ(Send(kL, RowKind::kInsert, {1, 0, "a"}).size(), 1u);  // an int is not a double
  EXPECT_EQ(Send(kL, RowKind::kInsert, {1, std::nan(""), "a"}).size(), 1u);
  EXPECT_EQ(Send(kL, RowKind::kDelete, {1, std::nan(""), "a"}).size(), 1u);  // NaN != NaN
  EXPECT_EQ(state().rows(kL), 3u);
  EXPECT_EQ(Send(kL, RowKind::kDelete, {1, 0.0, "a"}).size(), 1u);  // one copy of two
  EXPECT_EQ(state().rows(kL), 3u);
  EXPECT_EQ(Send(kL, RowKind::kDelete, {1, -0.0, "a"}).size(), 1u);
  EXPECT_EQ(state().rows(kL), 2u);
}

TEST_F(Packed, RemovingFromTheMiddleKeepsTheOthersInOrder) {
  Start({false, false, 0, -1}, {false, false, 0, -1});
  for (int i = 0; i < 20; ++i) {
    Send(kL, RowKind::kInsert, {7, i, std::string(static_cast<std::size_t>(i * 7), 'x')});
  }
  for (int i = 0; i < 20; i += 3) {
    Send(kL, RowKind::kDelete, {7, i, std::string(static_cast<std::size_t>(i * 7), 'x')});
  }
  const std::vector<Seen> out = Send(kR, RowKind::kInsert, {7, 0, ""});
  std::vector<int64_t> order;
  for (const Seen& s : out) order.push_back(s.left->at(1).AsInt());
  std::vector<int64_t> want;
  for (int i = 0; i < 20; ++i) {
    if (i % 3 != 0) want.push_back(i);
  }
  EXPECT_EQ(order, want);
  EXPECT_EQ(state().rows(kL), want.size());
}

TEST_F(Packed, ManyKeysEmptiedByRetractionAndExpiryAreForgottenAndRecycled) {
  Start({true, false, 100, -1}, {false, false, 100, -1});
  for (int round = 0; round < 3; ++round) {
    const int64_t now = round * 1000;
    for (int k = 0; k < 5000; ++k) Send(kL, RowKind::kInsert, {k, round, "left"}, 0, now);
    for (int k = 0; k < 5000; k += 2) Send(kR, RowKind::kInsert, {k, round, "right"}, 1, now);
    EXPECT_EQ(state().keys(), 5000u);
    EXPECT_EQ(state().rows(kL), 5000u);
    EXPECT_EQ(state().rows(kR), 2500u);
    for (int k = 0; k < 5000; k += 4) Send(kL, RowKind::kDelete, {k, round, "left"}, 0, now);
    EXPECT_EQ(state().rows(kL), 3750u);
    mutable_state().Expire(now + 99);
    EXPECT_EQ(state().rows(kL) + state().rows(kR), 3750u + 2500u);
    mutable_state().Expire(now + 100);
    EXPECT_EQ(state().rows(kL) + state().rows(kR), 0u);
    EXPECT_EQ(state().keys(), 0u);
  }
  // Recycled keys join as new ones.
  EXPECT_EQ(Send(kL, RowKind::kInsert, {3, 9, "l"}, 0, 5000).size(), 1u);  // padded
  const std::vector<Seen> out = Send(kR, RowKind::kInsert, {3, 9, "r"}, 0, 5000);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].left->at(2), Value("l"));
  EXPECT_EQ(out[1].right->at(2), Value("r"));
}

}  // namespace
}  // namespace tempest::bolts

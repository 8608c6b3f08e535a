// SolveJoinTimeBounds: Spark's StreamingJoinHelperSuite arithmetic (right watermark 10 000 ms,
// solving for the left side) in Tempest's terms. Spark's result E is the largest left time it
// evicts, E = wm + k - 1 for the bound left.ts >= right.ts + k; literals are milliseconds here
// (Spark reads a plain number as seconds and writes intervals), so "interval 1 second" is 1000.
#include "bolts/join/join_time_bounds.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace tempest::bolts {
namespace {

constexpr int64_t kWatermark = 10000;

// lt / rt are the time fields, lo / ro other fields of each side.
int SideOf(const ExprNode& f) {
  if (f.path.size() != 1) return -1;
  if (f.path[0] == "lt") return 0;
  if (f.path[0] == "rt") return 1;
  return -1;
}

// Spark's answer for the left side: the largest left time evicted at kWatermark.
std::optional<int64_t> Evicted(const std::string& condition) {
  const JoinTimeBounds b = SolveJoinTimeBounds(ParseExpression(condition), SideOf);
  if (!b.min_lead[0]) return std::nullopt;
  return kWatermark + *b.min_lead[0] - 1;
}

TEST(JoinTimeBoundsTest, SparksComparisonsBetweenTheTimes) {
  EXPECT_EQ(Evicted("lt > rt"), 10000);
  EXPECT_EQ(Evicted("lt >= rt"), 9999);
  EXPECT_EQ(Evicted("lt < rt"), std::nullopt);
  EXPECT_EQ(Evicted("lt <= rt"), std::nullopt);
  EXPECT_EQ(Evicted("rt > lt"), std::nullopt);
  EXPECT_EQ(Evicted("rt >= lt"), std::nullopt);
  EXPECT_EQ(Evicted("rt < lt"), 10000);
  EXPECT_EQ(Evicted("rt <= lt"), 9999);
}

TEST(JoinTimeBoundsTest, SparksOffsetsOnEitherSide) {
  EXPECT_EQ(Evicted("lt > rt + 1000"), 11000);
  EXPECT_EQ(Evicted("lt + 2000 > rt"), 8000);
  EXPECT_EQ(Evicted("lt > rt - 3000"), 7000);
  EXPECT_EQ(Evicted("rt < lt - 3000"), 13000);
  EXPECT_EQ(Evicted("rt - 1000 < lt - 3000"), 12000);
  EXPECT_EQ(Evicted("rt < lt - 160240000"), 160250000);  // '1 20:30:40' day to second
  EXPECT_EQ(Evicted("lt > 2000 + rt"), 12000);
  EXPECT_EQ(Evicted("lt > -500 + rt"), 9500);
  EXPECT_EQ(Evicted("lt - rt > 2000"), 12000);
  EXPECT_EQ(Evicted("-rt + lt > 100"), 10100);
  EXPECT_EQ(Evicted("0 > rt - lt + 200"), 10200);
  EXPECT_EQ(Evicted("lt + 2000 > rt"), 8000);
  EXPECT_EQ(Evicted("1000 + lt > rt"), 9000);
  EXPECT_EQ(Evicted("lt - 2000 > rt"), 12000);
  EXPECT_EQ(Evicted("lt + 500 > rt"), 9500);
  EXPECT_EQ(Evicted("lt - rt - 2000 > 0"), 12000);
  EXPECT_EQ(Evicted("-rt + lt - 100 > 0"), 10100);
  EXPECT_EQ(Evicted("lt - 2000.0 > rt + 1000"), 13000);
  EXPECT_EQ(Evicted("lt > rt - 10000"), 0);
  EXPECT_EQ(Evicted("lt > rt - 100000"), -90000);  // negative results are kept
}

TEST(JoinTimeBoundsTest, OfSeveralConjunctsTheTightestHolds) {
  // Spark keeps the loosest (7000, 6000): a pair must meet both, so either alone rules it out.
  EXPECT_EQ(Evicted("lt > rt - 3000 AND rt < lt + 2000"), 8000);
  EXPECT_EQ(Evicted("lt > rt - 3000 AND rt < lt + 4000"), 7000);
  EXPECT_EQ(Evicted("lo > ro AND lt > rt"), 10000);  // the unusable conjunct says nothing
}

TEST(JoinTimeBoundsTest, WhatSaysNothing) {
  EXPECT_EQ(Evicted("lt > lo"), std::nullopt);
  EXPECT_EQ(Evicted("lo > ro"), std::nullopt);
  EXPECT_EQ(Evicted("rt < ro"), std::nullopt);
  EXPECT_EQ(Evicted("lt > rt OR lo = 1"), std::nullopt);
  EXPECT_EQ(Evicted("NOT (lt <= rt)"), std::nullopt);
  EXPECT_EQ(Evicted("lt > rt * 1"), std::nullopt);
  EXPECT_EQ(Evicted("lt > rt + 'x'"), std::nullopt);
  EXPECT_EQ(Evicted("lt > 10000"), std::nullopt);  // one-sided: a pre-join filter, no bound
  EXPECT_EQ(Evicted("lt + lt > rt"), std::nullopt);
}

TEST(JoinTimeBoundsTest, AnEqualityBoundsBothSidesAndSidesAreSolvedAlike) {
  const JoinTimeBounds eq = SolveJoinTimeBounds(ParseExpression("lt = rt + 5"), SideOf);
  EXPECT_EQ(eq.min_lead[0], 5);
  EXPECT_EQ(eq.min_lead[1], -5);
  const JoinTimeBounds between =
      SolveJoinTimeBounds(ParseExpression("lt >= rt - 5000 AND lt <= rt + 5000"), SideOf);
  EXPECT_EQ(between.min_lead[0], -5000);  // Spark: left state watermark wm - 5001
  EXPECT_EQ(between.min_lead[1], -5000);
  const JoinTimeBounds strict = SolveJoinTimeBounds(ParseExpression("lt < rt - 5000"), SideOf);
  EXPECT_EQ(strict.min_lead[0], std::nullopt);
  EXPECT_EQ(strict.min_lead[1], 5001);  // Spark: right state watermark wm + 5000
}

}  // namespace
}  // namespace tempest::bolts

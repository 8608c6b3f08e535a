// LatencyBuckets / LatencyCounts: bucket bounds and quantiles of the complete-latency metric.
#include "runtime/acking/latency_histogram.h"

#include <gtest/gtest.h>

namespace tempest::runtime {
namespace {

TEST(LatencyHistogramTest, BucketsAreExactBelowSixteenThenAtMostAnEighthWide) {
  for (uint64_t us = 0; us < 16; ++us) EXPECT_EQ(LatencyBuckets::Lower(LatencyBuckets::Of(us)), us);
  int last = -1;
  for (uint64_t us = 1; us < (uint64_t{1} << 30); us += us / 7 + 1) {
    const int b = LatencyBuckets::Of(us);
    EXPECT_GE(b, last);
    last = b;
    const uint64_t lower = LatencyBuckets::Lower(b);
    EXPECT_LE(lower, us);
    EXPECT_GT(LatencyBuckets::Lower(b + 1), us) << us;
    EXPECT_LE(us - lower, lower / 8 + 1) << us;
  }
  EXPECT_EQ(LatencyBuckets::Of(UINT64_MAX), LatencyBuckets::kCount - 1);
}

TEST(LatencyHistogramTest, QuantilesOfRecordedLatencies) {
  LatencyHistogram h;
  for (uint64_t us = 1; us <= 100; ++us) h.Record(us);
  const LatencyCounts c = h.Read();
  EXPECT_EQ(c.Total(), 100u);
  EXPECT_EQ(c.Quantile(0), 1u);
  EXPECT_EQ(c.Quantile(0.5), LatencyBuckets::Lower(LatencyBuckets::Of(50)));
  EXPECT_EQ(c.Quantile(1), LatencyBuckets::Lower(LatencyBuckets::Of(100)));
  LatencyCounts merged = c;
  merged.Merge(c);
  EXPECT_EQ(merged.Total(), 200u);
  EXPECT_EQ(merged.Quantile(0.5), c.Quantile(0.5));
  EXPECT_EQ(LatencyCounts().Quantile(0.5), 0u);
}

}  // namespace
}  // namespace tempest::runtime

// A task's own metrics (Storm's metrics v2): registered by name, read by the reporters.
#include <gtest/gtest.h>

#include <stdexcept>

#include "tempest/metrics.h"

namespace tempest::topology {
namespace {

using Kind = MetricReading::Kind;

TEST(MetricRegistryTest, EachKindReadsWhatTheTaskRecorded) {
  MetricRegistry registry;
  Counter& counter = registry.RegisterCounter("in flight");
  Meter& meter = registry.RegisterMeter("parsed");
  Gauge& gauge = registry.RegisterGauge("cache size");
  Histogram& histogram = registry.RegisterHistogram("batch rows");
  counter.Inc(5);
  counter.Dec(7);
  meter.Mark();
  meter.Mark(41);
  gauge.Set(1200);
  for (int64_t v : {0, 1, 2, 3, 4, 1000, -5}) histogram.Update(v);
  const std::vector<MetricReading> expected = {
      {"in flight", Kind::kCounter, -2, {}},
      {"parsed", Kind::kMeter, 42, {}},
      {"cache size", Kind::kGauge, 1200, {}},
      // 0 and -5 in bucket 0; 1 in 1; 2, 3 in 2; 4 in 3; 1000 in 10 ([512, 1023]).
      {"batch rows", Kind::kHistogram, 1010, {0, 2, 1, 1, 2, 2, 3, 1, 10, 1}},
  };
  EXPECT_EQ(registry.Read(), expected);
  EXPECT_EQ(Histogram::Lower(10), 512u);
  EXPECT_EQ(Histogram::Upper(10), 1023u);
  EXPECT_EQ(Histogram::Upper(64), UINT64_MAX);
}

TEST(MetricRegistryTest, TheSameNameIsTheSameMetricAndAnotherKindIsAnError) {
  MetricRegistry registry;
  Counter& a = registry.RegisterCounter("rows");
  EXPECT_EQ(&registry.RegisterCounter("rows"), &a);
  try {
    registry.RegisterHistogram("rows");
    FAIL() << "a counter registered again as a histogram";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "metric 'rows' is already registered as a counter, not a histogram");
  }
  EXPECT_THROW(registry.RegisterGauge(""), std::invalid_argument);
  EXPECT_EQ(registry.Read().size(), 1u);
}

}  // namespace
}  // namespace tempest::topology

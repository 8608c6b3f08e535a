// Storm's WaterMarkEventGeneratorTest cases (lag 5), plus what Tempest adds: idle and ended
// inputs no longer hold the watermark back (docs/contracts.md, "Event time").
#include "bolts/windowing/watermark_tracker.h"

#include <gtest/gtest.h>

namespace tempest::bolts {
namespace {

TEST(WatermarkTrackerTest, TrackSingleStream) {
  WatermarkTracker w(1, 5, 0, 0);
  w.Track(0, 100);
  w.Track(0, 110);
  EXPECT_EQ(w.Advance(0), 105);
}

TEST(WatermarkTrackerTest, TrackSingleStreamOutOfOrder) {
  WatermarkTracker w(1, 5, 0, 0);
  w.Track(0, 100);
  w.Track(0, 110);
  w.Track(0, 104);
  EXPECT_EQ(w.Advance(0), 105);
}

// What the event-time input calls per tuple: Advanced says whether it moved, Current gives it.
TEST(WatermarkTrackerTest, AdvancedSaysWhetherTheWatermarkMovedAndCurrentGivesIt) {
  WatermarkTracker w(2, 5, 0, 0);
  w.Track(0, 100);
  EXPECT_FALSE(w.Advanced(0));  // stream 1 has delivered nothing
  w.Track(1, 90);
  EXPECT_TRUE(w.Advanced(0));
  EXPECT_EQ(w.Current(), 85);
  EXPECT_FALSE(w.Advanced(0));  // unchanged
  w.Track(1, 120);
  EXPECT_TRUE(w.Advanced(0));
  EXPECT_EQ(w.Current(), 95);
}

TEST(WatermarkTrackerTest, TrackTwoStreamsWaitsForBothThenTakesTheMinimum) {
  WatermarkTracker w(2, 5, 0, 0);
  w.Track(0, 100);
  w.Track(0, 110);
  EXPECT_EQ(w.Advance(0), std::nullopt);
  EXPECT_EQ(w.watermark(), std::nullopt);
  w.Track(1, 95);
  w.Track(1, 98);
  EXPECT_EQ(w.Advance(0), 93);
}

TEST(WatermarkTrackerTest, NoEventsNoWatermark) {
  WatermarkTracker w(1, 5, 0, 0);
  EXPECT_EQ(w.Advance(0), std::nullopt);
}

TEST(WatermarkTrackerTest, LateEvent) {
  WatermarkTracker w(1, 5, 0, 0);
  EXPECT_TRUE(w.Track(0, 100));
  EXPECT_TRUE(w.Track(0, 110));
  EXPECT_EQ(w.Advance(0), 105);
  EXPECT_TRUE(w.Track(0, 105));  // equal to the watermark: not late
  EXPECT_TRUE(w.Track(0, 106));
  EXPECT_TRUE(w.Track(0, 115));
  EXPECT_FALSE(w.Track(0, 104));  // strictly below: late
  EXPECT_EQ(w.Advance(0), 110);
}

TEST(WatermarkTrackerTest, NeverGoesBackAndReportsOnlyAdvances) {
  WatermarkTracker w(2, 0, 0, 0);
  w.Track(0, 50);
  w.Track(1, 60);
  EXPECT_EQ(w.Advance(0), 50);
  EXPECT_EQ(w.Advance(0), std::nullopt);  // unchanged
  w.End(0);                               // ends: stream 1 alone holds it: 60
  EXPECT_EQ(w.Advance(0), 60);
  EXPECT_EQ(w.watermark(), 60);
}

TEST(WatermarkTrackerTest, AnIdleStreamStopsHoldingTheWatermarkBack) {
  WatermarkTracker w(2, 0, /*idle_timeout_ms=*/1000, /*now=*/0);
  w.Touch(0, 100);
  w.Track(0, 5000);
  EXPECT_EQ(w.Advance(500), std::nullopt);  // stream 1 has delivered nothing, is not idle yet
  EXPECT_FALSE(w.IsIdle(1, 999));
  EXPECT_TRUE(w.IsIdle(1, 1000));
  w.Touch(0, 1000);
  EXPECT_EQ(w.Advance(1000), 5000);  // stream 1 idle: stream 0 alone
  // Stream 1 wakes up behind the watermark: its tuple is late, and it holds the watermark again.
  w.Touch(1, 1100);
  EXPECT_FALSE(w.Track(1, 4000));
  w.Track(0, 7000);
  EXPECT_EQ(w.Advance(1100), std::nullopt);  // min(7000, 4000) is below 5000: no advance
  w.Track(1, 6000);
  EXPECT_EQ(w.Advance(1100), 6000);
}

TEST(WatermarkTrackerTest, WhenEveryStreamIsIdleItHolds) {
  WatermarkTracker w(1, 0, 1000, 0);
  w.Track(0, 10);
  EXPECT_EQ(w.Advance(10), 10);
  w.Track(0, 20);
  EXPECT_EQ(w.Advance(5000), std::nullopt);  // idle: nothing holds it, nothing ended
}

TEST(WatermarkTrackerTest, EndedStreamsGiveTheirLargestTimestampWhenNoneHolds) {
  WatermarkTracker w(2, 2, 0, 0);
  w.Track(0, 30);
  w.End(0);
  EXPECT_EQ(w.Advance(0), std::nullopt);  // stream 1 live and silent: it holds
  w.End(1);
  EXPECT_EQ(w.Advance(0), 28);
}

}  // namespace
}  // namespace tempest::bolts

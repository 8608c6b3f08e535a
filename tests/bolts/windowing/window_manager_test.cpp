// Storm's WindowManagerTest cases (storm-client windowing), reproduced with the same events and
// expected windows, plus the end-of-input rules of docs/contracts.md, "Bounded runs", and the
// deliberate differences listed in window_manager.h. Time is passed in, nothing sleeps.
#include "bolts/windowing/window_manager.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace tempest::bolts {
namespace {

using Ints = std::vector<int>;

Ints Seq(int from, int to) {
  Ints out(static_cast<std::size_t>(to - from + 1));
  std::iota(out.begin(), out.end(), from);
  return out;
}

Ints Values(std::span<const int* const> events) {
  Ints out;
  for (const int* e : events) out.push_back(*e);
  return out;
}

// Records every activation and expiry, as Storm's test Listener does.
struct Listener {
  std::vector<Ints> activations, news, expireds;
  std::vector<int64_t> references;
  std::vector<Ints> expiries;  // one entry per expired event batch is not kept: a flat list
  Ints expired_flat;

  Ints last(const std::vector<Ints>& v) const { return v.empty() ? Ints{} : v.back(); }
  void Clear() {
    activations.clear();
    news.clear();
    expireds.clear();
    references.clear();
    expired_flat.clear();
  }
};

struct Fixture {
  Listener l;
  WindowManager<int> wm;

  explicit Fixture(WindowPolicy p)
      : wm(
            p,
            [this](const WindowManager<int>::Activation& a) {
              l.activations.push_back(Values(a.events));
              l.news.push_back(Values(a.new_events));
              l.expireds.push_back(Values(a.expired));
              l.references.push_back(a.reference);
            },
            [this](int& e) { l.expired_flat.push_back(e); }) {}
};

WindowPolicy Policy(TriggerKind t, int64_t slide, EvictionKind e, int64_t length,
                    bool tumbling = false) {
  WindowPolicy p;
  p.trigger = t;
  p.slide = slide;
  p.eviction = e;
  p.length = length;
  p.tumbling = tumbling;
  return p;
}

constexpr int64_t kHour = 3600 * 1000;
constexpr int64_t kNow = 1'700'000'000'000;

TEST(WindowManagerTest, CountBasedWindow) {
  Fixture f(Policy(TriggerKind::kCount, 2, EvictionKind::kCount, 5));
  f.wm.Add(1, kNow);
  f.wm.Add(2, kNow);
  EXPECT_TRUE(f.l.expired_flat.empty());
  EXPECT_EQ(f.l.last(f.l.activations), Seq(1, 2));
  EXPECT_EQ(f.l.last(f.l.news), Seq(1, 2));
  EXPECT_TRUE(f.l.last(f.l.expireds).empty());
  f.wm.Add(3, kNow);
  f.wm.Add(4, kNow);
  EXPECT_TRUE(f.l.expired_flat.empty());
  EXPECT_EQ(f.l.last(f.l.activations), Seq(1, 4));
  EXPECT_EQ(f.l.last(f.l.news), Seq(3, 4));
  f.wm.Add(5, kNow);
  f.wm.Add(6, kNow);
  EXPECT_EQ(f.l.expired_flat, Seq(1, 1));
  EXPECT_EQ(f.l.last(f.l.activations), Seq(2, 6));
  EXPECT_EQ(f.l.last(f.l.news), Seq(5, 6));
  EXPECT_EQ(f.l.last(f.l.expireds), Seq(1, 1));
  f.l.Clear();
  f.wm.Add(7, kNow);
  EXPECT_TRUE(f.l.expired_flat.empty());  // nothing expires until the trigger
  f.wm.Add(8, kNow);
  EXPECT_EQ(f.l.expired_flat, Seq(2, 3));
  EXPECT_EQ(f.l.last(f.l.activations), Seq(4, 8));
  EXPECT_EQ(f.l.last(f.l.news), Seq(7, 8));
  EXPECT_EQ(f.l.last(f.l.expireds), Seq(2, 3));
}

TEST(WindowManagerTest, WithoutKeepExpiredEventsLeaveAtOnceAndAreNotListed) {
  WindowPolicy p = Policy(TriggerKind::kCount, 2, EvictionKind::kCount, 5);
  p.keep_expired = false;
  Fixture f(p);
  for (int i = 1; i <= 8; ++i) f.wm.Add(i, kNow);
  ASSERT_EQ(f.l.activations.size(), 4u);
  EXPECT_EQ(f.l.activations[2], Seq(2, 6));
  EXPECT_EQ(f.l.activations[3], Seq(4, 8));
  EXPECT_EQ(f.l.news[3], Seq(7, 8));
  for (const Ints& e : f.l.expireds) EXPECT_TRUE(e.empty());
  EXPECT_EQ(f.l.expired_flat, Seq(1, 3));  // each expiry still reported once, in order
  EXPECT_EQ(f.wm.size(), 5u);
}

TEST(WindowManagerTest, ExpireThresholdCompactsTheWindow) {
  const int threshold = WindowManager<int>::kExpireEventsThreshold;
  Fixture f(Policy(TriggerKind::kTime, kHour, EvictionKind::kCount, 5));
  f.wm.Start(kNow);
  for (int i = 1; i <= 5; ++i) f.wm.Add(i, kNow);
  EXPECT_TRUE(f.l.expired_flat.empty());
  for (int i = 6; i <= threshold; ++i) f.wm.Add(i, kNow);
  EXPECT_EQ(f.l.expired_flat, Seq(1, threshold - 5));
  EXPECT_TRUE(f.l.activations.empty());
}

// Storm's testEvictBeforeWatermarkForWatermarkEvictionPolicy, for both eviction kinds.
void EvictNothingBeforeTheFirstWatermark(EvictionKind eviction) {
  const int threshold = WindowManager<int>::kExpireEventsThreshold;
  Fixture f(Policy(TriggerKind::kWatermarkCount, threshold, eviction, threshold));
  for (int i = 1; i <= threshold; ++i) f.wm.Add(i, i);
  EXPECT_TRUE(f.l.expired_flat.empty());
  f.wm.OnWatermark(threshold);
  EXPECT_EQ(f.l.last(f.l.activations), Seq(1, threshold));
  for (int i = threshold + 1; i <= 2 * threshold; ++i) f.wm.Add(i, i);
  f.wm.OnWatermark(threshold + threshold + 1);
  EXPECT_EQ(f.l.expired_flat, Seq(1, threshold));
}

TEST(WindowManagerTest, WatermarkCountEvictionEvictsNothingBeforeTheFirstWatermark) {
  EvictNothingBeforeTheFirstWatermark(EvictionKind::kWatermarkCount);
}

TEST(WindowManagerTest, WatermarkTimeEvictionEvictsNothingBeforeTheFirstWatermark) {
  EvictNothingBeforeTheFirstWatermark(EvictionKind::kWatermarkTime);
}

TEST(WindowManagerTest, TimeBasedWindow) {
  const int threshold = WindowManager<int>::kExpireEventsThreshold;
  Fixture f(Policy(TriggerKind::kTime, 24 * kHour, EvictionKind::kTime, 1000));
  f.wm.Start(kNow);
  for (int i = 1; i <= 50; ++i) f.wm.Add(i, kNow - 1000);  // in the past
  for (int i = 51; i <= threshold; ++i) f.wm.Add(i, kNow);
  EXPECT_EQ(f.l.expired_flat.size(), 50u);  // compaction expired the past ones
  for (int i = threshold + 1; i <= threshold + 100; ++i) f.wm.Add(i, kNow - 1000);
  f.l.expired_flat.clear();
  EXPECT_TRUE(f.wm.Trigger(kNow + 100));
  EXPECT_EQ(f.l.expired_flat, Seq(threshold + 1, threshold + 100));
  EXPECT_EQ(f.l.last(f.l.activations), Seq(51, threshold));
  EXPECT_EQ(f.l.last(f.l.news), Seq(51, threshold));
  Ints expired = Seq(1, 50);  // the activation lists those the compaction expired too
  for (int i : Seq(threshold + 1, threshold + 100)) expired.push_back(i);
  EXPECT_EQ(f.l.last(f.l.expireds), expired);

  f.l.Clear();
  const Ints fresh = Seq(threshold + 101, threshold + 200);
  for (int i : fresh) f.wm.Add(i, kNow);
  EXPECT_TRUE(f.wm.Trigger(kNow + 200));
  EXPECT_TRUE(f.l.expired_flat.empty());
  Ints window = Seq(51, threshold);
  window.insert(window.end(), fresh.begin(), fresh.end());
  EXPECT_EQ(f.l.last(f.l.activations), window);
  EXPECT_EQ(f.l.last(f.l.news), fresh);
}

TEST(WindowManagerTest, TimeBasedWindowExpiry) {
  Fixture f(Policy(TriggerKind::kTime, 24 * kHour, EvictionKind::kTime, 100));
  f.wm.Start(kNow);
  for (int i = 1; i <= 10; ++i) f.wm.Add(i, kNow);
  EXPECT_TRUE(f.wm.Trigger(kNow + 60));
  EXPECT_EQ(f.l.last(f.l.activations), Seq(1, 10));
  EXPECT_TRUE(f.l.last(f.l.expireds).empty());
  f.l.Clear();
  EXPECT_FALSE(f.wm.Trigger(kNow + 120));  // everything expired: no activation
  EXPECT_EQ(f.l.expired_flat, Seq(1, 10));
  EXPECT_TRUE(f.l.activations.empty());
  f.l.Clear();
  EXPECT_FALSE(f.wm.Trigger(kNow + 180));
  EXPECT_TRUE(f.l.activations.empty());
  EXPECT_TRUE(f.l.expired_flat.empty());
}

TEST(WindowManagerTest, TumblingWindow) {
  Fixture f(Policy(TriggerKind::kCount, 3, EvictionKind::kCount, 3, true));
  f.wm.Add(1, kNow);
  f.wm.Add(2, kNow);
  EXPECT_TRUE(f.l.activations.empty());
  f.wm.Add(3, kNow);
  EXPECT_TRUE(f.l.expired_flat.empty());
  EXPECT_EQ(f.l.last(f.l.activations), Seq(1, 3));
  EXPECT_TRUE(f.l.last(f.l.expireds).empty());
  EXPECT_EQ(f.l.last(f.l.news), Seq(1, 3));
  f.l.Clear();
  f.wm.Add(4, kNow);
  f.wm.Add(5, kNow);
  f.wm.Add(6, kNow);
  EXPECT_EQ(f.l.expired_flat, Seq(1, 3));
  EXPECT_EQ(f.l.last(f.l.activations), Seq(4, 6));
  EXPECT_EQ(f.l.last(f.l.expireds), Seq(1, 3));
  EXPECT_EQ(f.l.last(f.l.news), Seq(4, 6));
}

TEST(WindowManagerTest, EventTimeBasedWindow) {
  Fixture f(Policy(TriggerKind::kWatermarkTime, 10, EvictionKind::kWatermarkTime, 20));
  f.wm.Add(1, 603);
  f.wm.Add(2, 605);
  f.wm.Add(3, 607);
  f.wm.OnWatermark(609);  // finds the first aligned window end (610), activates nothing
  EXPECT_TRUE(f.l.activations.empty());

  f.wm.Add(4, 618);
  f.wm.Add(5, 626);
  f.wm.Add(6, 636);
  f.wm.OnWatermark(631);  // windows ending 610, 620, 630
  ASSERT_EQ(f.l.activations.size(), 3u);
  EXPECT_EQ(f.l.activations[0], Seq(1, 3));
  EXPECT_EQ(f.l.activations[1], Seq(1, 4));
  EXPECT_EQ(f.l.activations[2], Seq(4, 5));
  EXPECT_EQ(f.l.expireds[0], Ints{});
  EXPECT_EQ(f.l.expireds[1], Ints{});
  EXPECT_EQ(f.l.expireds[2], Seq(1, 3));
  EXPECT_EQ(f.l.news[0], Seq(1, 3));
  EXPECT_EQ(f.l.news[1], Seq(4, 4));
  EXPECT_EQ(f.l.news[2], Seq(5, 5));
  EXPECT_EQ(f.l.references, (std::vector<int64_t>{610, 620, 630}));
  EXPECT_EQ(f.l.expired_flat, Seq(1, 3));

  f.wm.Add(7, 825);  // a gap in time
  f.wm.Add(8, 826);
  f.wm.Add(9, 827);
  f.wm.Add(10, 839);
  f.l.Clear();
  f.wm.OnWatermark(834);
  ASSERT_EQ(f.l.activations.size(), 3u);
  EXPECT_EQ(f.l.activations[0], Seq(5, 6));
  EXPECT_EQ(f.l.activations[1], Seq(6, 6));
  EXPECT_EQ(f.l.activations[2], Seq(7, 9));
  EXPECT_EQ(f.l.expireds[0], Seq(4, 4));
  EXPECT_EQ(f.l.expireds[1], Seq(5, 5));
  EXPECT_EQ(f.l.expireds[2], Ints{});  // 6 expired at the empty window 660, not reported
  EXPECT_EQ(f.l.news[0], Seq(6, 6));
  EXPECT_EQ(f.l.news[1], Ints{});
  EXPECT_EQ(f.l.news[2], Seq(7, 9));
  EXPECT_EQ(f.l.references, (std::vector<int64_t>{640, 650, 830}));
  EXPECT_EQ(f.l.expired_flat, (Ints{4, 5, 6}));
}

TEST(WindowManagerTest, CountBasedWindowWithEventTs) {
  Fixture f(Policy(TriggerKind::kWatermarkTime, 10, EvictionKind::kWatermarkCount, 3));
  for (auto [v, ts] : std::vector<std::pair<int, int64_t>>{
           {1, 603}, {2, 605}, {3, 607}, {4, 618}, {5, 626}, {6, 636}}) {
    f.wm.Add(v, ts);
  }
  f.wm.OnWatermark(631);
  ASSERT_EQ(f.l.activations.size(), 3u);
  EXPECT_EQ(f.l.activations[0], Seq(1, 3));
  EXPECT_EQ(f.l.activations[1], Seq(2, 4));
  EXPECT_EQ(f.l.activations[2], Seq(3, 5));

  for (auto [v, ts] : std::vector<std::pair<int, int64_t>>{{7, 665}, {8, 666}, {9, 667}, {10, 679}})
    f.wm.Add(v, ts);
  f.l.Clear();
  f.wm.OnWatermark(674);
  ASSERT_EQ(f.l.activations.size(), 4u);
  EXPECT_EQ(f.l.activations[0], Seq(4, 6));  // the same events in three windows
  EXPECT_EQ(f.l.activations[1], Seq(4, 6));
  EXPECT_EQ(f.l.activations[2], Seq(4, 6));
  EXPECT_EQ(f.l.activations[3], Seq(7, 9));
}

TEST(WindowManagerTest, CountBasedTriggerWithEventTs) {
  Fixture f(Policy(TriggerKind::kWatermarkCount, 3, EvictionKind::kWatermarkTime, 20));
  for (auto [v, ts] : std::vector<std::pair<int, int64_t>>{
           {1, 603}, {2, 605}, {3, 607}, {4, 618}, {5, 625}, {6, 626}, {7, 629}, {8, 636}}) {
    f.wm.Add(v, ts);
  }
  f.wm.OnWatermark(631);
  ASSERT_EQ(f.l.activations.size(), 2u);
  EXPECT_EQ(f.l.activations[0], Seq(1, 3));
  EXPECT_EQ(f.l.activations[1], Seq(3, 6));

  for (auto [v, ts] :
       std::vector<std::pair<int, int64_t>>{{9, 665}, {10, 666}, {11, 667}, {12, 669}, {12, 679}}) {
    f.wm.Add(v, ts);
  }
  f.l.Clear();
  f.wm.OnWatermark(674);
  ASSERT_EQ(f.l.activations.size(), 2u);
  EXPECT_EQ(f.l.activations[0], Seq(9, 9));
  EXPECT_EQ(f.l.activations[1], Seq(9, 12));
}

void AddSameTimestamps(WindowManager<int>& wm) {
  const int64_t ts[] = {10, 10, 11, 12, 12, 12, 12, 13, 14, 15};
  for (int i = 0; i < 10; ++i) wm.Add(i + 1, ts[i]);
}

TEST(WindowManagerTest, CountBasedTumblingWithSameEventTs) {
  Fixture f(Policy(TriggerKind::kWatermarkCount, 2, EvictionKind::kWatermarkCount, 2, true));
  AddSameTimestamps(f.wm);
  f.wm.OnWatermark(20);
  EXPECT_EQ(f.l.activations,
            (std::vector<Ints>{Seq(1, 2), Seq(3, 4), Seq(5, 6), Seq(7, 8), Seq(9, 10)}));
}

TEST(WindowManagerTest, CountBasedSlidingWithSameEventTs) {
  Fixture f(Policy(TriggerKind::kWatermarkCount, 2, EvictionKind::kWatermarkCount, 5));
  AddSameTimestamps(f.wm);
  f.wm.OnWatermark(20);
  EXPECT_EQ(f.l.activations,
            (std::vector<Ints>{Seq(1, 2), Seq(1, 4), Seq(2, 6), Seq(4, 8), Seq(6, 10)}));
}

TEST(WindowManagerTest, EventTimeLag) {
  Fixture f(Policy(TriggerKind::kWatermarkTime, 10, EvictionKind::kWatermarkTime, 20));
  for (auto [v, ts] : std::vector<std::pair<int, int64_t>>{
           {1, 603}, {2, 605}, {3, 607}, {4, 618}, {5, 626}, {6, 632}, {7, 629}, {8, 636}}) {
    f.wm.Add(v, ts);
  }
  f.wm.OnWatermark(631);
  ASSERT_EQ(f.l.activations.size(), 3u);
  EXPECT_EQ(f.l.activations[0], Seq(1, 3));
  EXPECT_EQ(f.l.activations[1], Seq(1, 4));
  EXPECT_EQ(f.l.activations[2], (Ints{4, 5, 7}));  // out-of-order 7 is in, 632 waits
}

// Storm's testScanStop has the same windows; its scan stops early at an event beyond the lag.
// This manager always scans on: the early stop can skip an in-window event that arrived behind
// a newer one when one watermark fires several windows.
TEST(WindowManagerTest, ScanCase) {
  Fixture f(Policy(TriggerKind::kWatermarkTime, 10, EvictionKind::kWatermarkTime, 20));
  const int64_t ts[] = {603, 605, 607, 618, 626, 629, 636, 637, 638, 639};
  for (int i = 0; i < 10; ++i) f.wm.Add(i + 1, ts[i]);
  f.wm.OnWatermark(631);
  ASSERT_EQ(f.l.activations.size(), 3u);
  EXPECT_EQ(f.l.activations[0], Seq(1, 3));
  EXPECT_EQ(f.l.activations[1], Seq(1, 4));
  EXPECT_EQ(f.l.activations[2], (Ints{4, 5, 6}));
}

TEST(WindowManagerTest, AnOutOfOrderEventBehindANewerOneIsStillInItsTumblingWindow) {
  // Arrival 603, 615, 608 then watermark 615 (lag 0): window (600, 610] must hold 603 and 608.
  Fixture f(Policy(TriggerKind::kWatermarkTime, 10, EvictionKind::kWatermarkTime, 10, true));
  f.wm.Add(1, 603);
  f.wm.Add(2, 615);
  f.wm.Add(3, 608);
  f.wm.OnWatermark(615);
  ASSERT_EQ(f.l.activations.size(), 1u);
  EXPECT_EQ(f.l.activations[0], (Ints{1, 3}));
}

TEST(WindowManagerTest, TimestampsAtOrBelowZeroAreWindowed) {
  Fixture f(Policy(TriggerKind::kWatermarkTime, 10, EvictionKind::kWatermarkTime, 10, true));
  f.wm.Add(1, -15);
  f.wm.Add(2, -5);
  f.wm.Add(3, 0);
  f.wm.Add(4, 3);
  f.wm.OnWatermark(10);
  EXPECT_EQ(f.l.activations, (std::vector<Ints>{{1}, {2, 3}, {4}}));
  EXPECT_EQ(f.l.references, (std::vector<int64_t>{-10, 0, 10}));
}

TEST(WindowManagerTest, ALateTimeTriggerStillEvaluatesEachWindowAtItsInstant) {
  // Tumbling 100 ms; the timer runs 30 ms late: the tuple that arrived at +110 belongs to the
  // second window, not lost between the two.
  Fixture f(Policy(TriggerKind::kTime, 100, EvictionKind::kTime, 100, true));
  f.wm.Start(kNow);
  f.wm.Add(1, kNow + 10);
  f.wm.Add(2, kNow + 110);  // arrives after the first window's instant, before its timer ran
  f.wm.OnTime(kNow + 130);
  f.wm.Add(3, kNow + 150);
  f.wm.OnTime(kNow + 230);
  EXPECT_EQ(f.l.activations, (std::vector<Ints>{{1}, {2, 3}}));
  EXPECT_EQ(f.l.references, (std::vector<int64_t>{kNow + 100, kNow + 200}));
  EXPECT_EQ(f.l.expireds, (std::vector<Ints>{{}, {1}}));
}

TEST(WindowManagerTest, CompactionBeforeALateTimerKeepsWhatItsWindowHolds) {
  // 150 arrivals over 38 ms before the first timer (due at +20) runs: the compaction at the
  // 100th (+25) must not expire the early ones that the window (0, 20] holds.
  Fixture f(Policy(TriggerKind::kTime, 20, EvictionKind::kTime, 20, true));
  f.wm.Start(kNow);
  for (int i = 0; i < 150; ++i) f.wm.Add(i, kNow + 1 + i / 4);
  EXPECT_TRUE(f.l.expired_flat.empty());
  f.wm.OnTime(kNow + 40);
  ASSERT_EQ(f.l.activations.size(), 2u);
  EXPECT_EQ(f.l.activations[0], Seq(0, 79));    // arrived at +1..+20
  EXPECT_EQ(f.l.activations[1], Seq(80, 149));  // +21..+38
}

// End of input (docs/contracts.md, "Bounded runs").
TEST(WindowManagerFlushTest, EventTimeFiresEveryPendingWindowAsIfTheWatermarkWereInfinite) {
  Fixture f(Policy(TriggerKind::kWatermarkTime, 10, EvictionKind::kWatermarkTime, 20));
  f.wm.Add(1, 603);
  f.wm.Add(2, 615);
  f.wm.Add(3, 628);
  f.wm.OnWatermark(611);
  EXPECT_EQ(f.l.activations, (std::vector<Ints>{{1}}));
  f.wm.Flush(kNow);
  EXPECT_EQ(f.l.activations, (std::vector<Ints>{{1}, {1, 2}, {2, 3}, {3}}));
  EXPECT_EQ(f.l.references, (std::vector<int64_t>{610, 620, 630, 640}));
}

TEST(WindowManagerFlushTest, EventTimeCountLengthStopsAtTheWindowOfTheLastEvent) {
  Fixture f(Policy(TriggerKind::kWatermarkTime, 10, EvictionKind::kWatermarkCount, 2));
  f.wm.Add(1, 603);
  f.wm.Add(2, 605);
  f.wm.Add(3, 627);
  f.wm.Flush(kNow);
  // As in Storm, a count-length window fires every slide, new events or not.
  EXPECT_EQ(f.l.activations, (std::vector<Ints>{{1, 2}, {1, 2}, {2, 3}}));
  EXPECT_EQ(f.l.references, (std::vector<int64_t>{610, 620, 630}));
}

TEST(WindowManagerFlushTest, ACountTumblingWindowFiresOnceMoreWithExactlyTheNewTuples) {
  Fixture f(Policy(TriggerKind::kCount, 3, EvictionKind::kCount, 3, true));
  for (int i = 1; i <= 5; ++i) f.wm.Add(i, kNow);
  f.wm.Flush(kNow + 5);
  EXPECT_EQ(f.l.activations, (std::vector<Ints>{{1, 2, 3}, {4, 5}}));
  EXPECT_EQ(f.l.expireds.back(), (Ints{1, 2, 3}));
  f.wm.Flush(kNow + 6);  // nothing new since: no activation
  EXPECT_EQ(f.l.activations.size(), 2u);
}

TEST(WindowManagerFlushTest, ACountSlidingWindowFiresOnceMoreWithWhatEvictionKeeps) {
  Fixture f(Policy(TriggerKind::kCount, 2, EvictionKind::kCount, 3));
  for (int i = 1; i <= 5; ++i) f.wm.Add(i, kNow);
  f.wm.Flush(kNow + 5);
  EXPECT_EQ(f.l.activations, (std::vector<Ints>{{1, 2}, {2, 3, 4}, {3, 4, 5}}));
  EXPECT_EQ(f.l.news.back(), (Ints{5}));
}

TEST(WindowManagerFlushTest, AnEventTimeCountWindowFiresTheIncompleteLastGroup) {
  Fixture f(Policy(TriggerKind::kWatermarkCount, 2, EvictionKind::kWatermarkCount, 2, true));
  for (int i = 1; i <= 5; ++i) f.wm.Add(i, 10 * i);
  f.wm.Flush(kNow);
  EXPECT_EQ(f.l.activations, (std::vector<Ints>{{1, 2}, {3, 4}, {5}}));
  EXPECT_EQ(f.l.references.back(), 50);
}

TEST(WindowManagerFlushTest, WindowsAlreadyDueFireBeforeTheLastOne) {
  // Sliding 40/20; no timer ran after +20: the windows due at +40, +60 and +80 fire at the end,
  // so the tuple at +15 is windowed twice and the one at +30 at all; nothing is left unseen
  // for a final window.
  Fixture f(Policy(TriggerKind::kTime, 20, EvictionKind::kTime, 40));
  f.wm.Start(kNow);
  f.wm.Add(1, kNow + 15);
  f.wm.OnTime(kNow + 20);
  f.wm.Add(2, kNow + 30);
  f.wm.Add(3, kNow + 75);
  f.wm.Flush(kNow + 90);
  EXPECT_EQ(f.l.activations, (std::vector<Ints>{{1}, {1, 2}, {2}, {3}}));
  EXPECT_EQ(f.l.references, (std::vector<int64_t>{kNow + 20, kNow + 40, kNow + 60, kNow + 80}));
}

TEST(WindowManagerTest, AnArrivalInTheMillisecondAWindowFiredGoesToTheNextWindow) {
  Fixture f(Policy(TriggerKind::kTime, 20, EvictionKind::kTime, 20, true));
  f.wm.Start(kNow);
  EXPECT_EQ(f.wm.ArrivalTime(kNow + 5), kNow + 5);  // no window evaluated yet
  f.wm.Add(1, kNow + 5);
  f.wm.OnTime(kNow + 20);
  EXPECT_EQ(f.wm.ArrivalTime(kNow + 20), kNow + 21);
  EXPECT_EQ(f.wm.ArrivalTime(kNow + 22), kNow + 22);
  f.wm.Add(2, f.wm.ArrivalTime(kNow + 20));
  f.wm.OnTime(kNow + 40);
  EXPECT_EQ(f.l.activations, (std::vector<Ints>{{1}, {2}}));
}

TEST(WindowManagerFlushTest, AProcessingTimeWindowFiresOnceMoreAtTheEnd) {
  Fixture f(Policy(TriggerKind::kTime, 100, EvictionKind::kTime, 100, true));
  f.wm.Start(kNow);
  f.wm.Add(1, kNow + 10);
  f.wm.OnTime(kNow + 100);
  f.wm.Add(2, kNow + 120);
  f.wm.Flush(kNow + 150);
  EXPECT_EQ(f.l.activations, (std::vector<Ints>{{1}, {2}}));
  EXPECT_EQ(f.l.references.back(), kNow + 150);
  f.wm.ExpireAll();
  EXPECT_EQ(f.l.expired_flat, (Ints{1, 2}));
  EXPECT_EQ(f.wm.size(), 0u);
}

}  // namespace
}  // namespace tempest::bolts

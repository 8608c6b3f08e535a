// AdaptWindowedBolt (Storm's WindowedBoltExecutor): what the windowed bolt sees, how its emits
// are anchored, when inputs are acked or failed, late tuples, idle and ended inputs, the end of
// the input and replays after it — with an injected clock and a recording collector.
#include "bolts/windowing/windowed_bolt.h"

#include <gtest/gtest.h>

#include <deque>
#include <limits>
#include <set>

#include "../../support/builtin_test_support.h"
#include "../../support/log_capture.h"

namespace tempest::bolts {
namespace {

using testing::FakeBoltCollector;
using topology::Fields;
using topology::StreamSchema;
using topology::Tuple;
using topology::Values;

// Records every window by the `id` field (field 0) of its tuples; emits one row per window
// (unanchored: the adapter anchors it); can throw or fail on demand.
class RecordingBolt final : public WindowedBolt {
 public:
  struct Seen {
    std::vector<int64_t> events, news, expired;
    std::optional<int64_t> start;
    int64_t end;
  };
  std::vector<Seen>* seen;
  bool throw_next = false;
  bool fail_first = false;
  bool reads_expired = true;

  explicit RecordingBolt(std::vector<Seen>* s) : seen(s) {}
  void Prepare(const topology::TopologyContext&, topology::OutputCollector& out) override {
    out_ = &out;
  }
  void Execute(const TupleWindow& w) override {
    auto ids = [](TupleWindow::Tuples ts) {
      std::vector<int64_t> out;
      for (const Tuple* t : ts) out.push_back(t->GetInt(0));
      return out;
    };
    seen->push_back(
        {ids(w.Get()), ids(w.GetNew()), ids(w.GetExpired()), w.StartTimestamp(), w.EndTimestamp()});
    if (fail_first) out_->Fail(*w.Get().front());
    out_->Ack(*w.Get().front());  // ignored: the window acks
    out_->Emit(Values{static_cast<int64_t>(w.Get().size())});
    if (throw_next) throw std::runtime_error("boom");
  }
  bool ReadsExpired() const override { return reads_expired; }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override { d.Declare({"n"}); }

 private:
  topology::OutputCollector* out_ = nullptr;
};

// Also records the ids (field 0) of each emit's anchors while they are valid.
class Collector final : public FakeBoltCollector {
 public:
  std::vector<std::vector<int64_t>> anchor_ids;

 protected:
  void DoEmit(std::string_view stream, int task, topology::Anchors anchors,
              topology::Values&& values) override {
    std::vector<int64_t> ids;
    for (const Tuple* a : anchors) ids.push_back(a->GetInt(0));
    anchor_ids.push_back(std::move(ids));
    FakeBoltCollector::DoEmit(stream, task, anchors, std::move(values));
  }
};

// A topology with spouts s1 and s2 (fields id, ts) feeding bolt "win", and its context.
struct Harness {
  std::vector<RecordingBolt::Seen> seen;
  RecordingBolt* recording = nullptr;
  Collector out;
  int64_t now = 1'000'000;
  std::unique_ptr<topology::Bolt> bolt;
  StreamSchema s1, s2;
  std::deque<Tuple> inputs;  // stable addresses
  std::unique_ptr<topology::TopologyContext> context;

  Harness(WindowConfig config, int streams = 1, topology::TopologyConfig topo = {}) {
    auto spec = std::make_shared<topology::TopologySpec>();
    spec->config = topo;
    topology::ComponentSpec bolt_spec;
    bolt_spec.id = "win";
    for (int i = 1; i <= streams; ++i) {
      topology::ComponentSpec spout;
      spout.id = "s" + std::to_string(i);
      spout.kind = topology::ComponentKind::kSpout;
      spec->components.push_back(spout);
      bolt_spec.inputs.push_back({topology::GlobalStreamId{spout.id, "default"}, {}});
    }
    spec->components.push_back(bolt_spec);
    auto layout = std::make_shared<const topology::TaskLayout>(*spec);
    context = std::make_unique<topology::TopologyContext>(spec, layout, streams + 1);
    for (auto [schema, name] : {std::pair{&s1, "s1"}, std::pair{&s2, "s2"}}) {
      schema->component = name;
      schema->fields = std::make_shared<const Fields>(Fields{"id", "ts"});
    }
    auto r = std::make_unique<RecordingBolt>(&seen);
    recording = r.get();
    bolt = AdaptWindowedBolt(std::move(r), std::move(config), Fields{"id", "ts"},
                             [this] { return now; });
  }
  void Prepare() { bolt->Prepare(*context, out); }
  // Input `id` with event time `ts` on stream 1 or 2, tracked as root `id`.
  const Tuple& Send(int64_t id, int64_t ts = 0, int stream = 1) {
    Tuple& t = inputs.emplace_back(stream == 1 ? &s1 : &s2, stream, Values{id, ts});
    tempest::topology::TupleAccess::MutableAck(t).anchors.push_back(
        {static_cast<uint64_t>(id + 1), 7});
    bolt->Execute(t);
    return t;
  }
  void Tick(int64_t advance_ms) {
    now += advance_ms;
    bolt->OnTick();
  }
  std::vector<int64_t> Acked() const {
    std::vector<int64_t> ids;
    for (const Tuple& t : out.acked) ids.push_back(t.GetInt(0));
    return ids;
  }
};

using Ids = std::vector<int64_t>;

TEST(WindowedBoltTest, ACountSlidingWindowAnchorsEmitsToTheWindowAndAcksOnExpiry) {
  Harness h(WindowConfig::Sliding(WindowSpan::Count(3), WindowSpan::Count(2)));
  h.Prepare();
  for (int64_t id = 1; id <= 6; ++id) h.Send(id);
  ASSERT_EQ(h.seen.size(), 3u);
  EXPECT_EQ(h.seen[0].events, (Ids{1, 2}));
  EXPECT_EQ(h.seen[1].events, (Ids{2, 3, 4}));
  EXPECT_EQ(h.seen[1].news, (Ids{3, 4}));
  EXPECT_EQ(h.seen[1].expired, (Ids{1}));
  EXPECT_EQ(h.seen[2].events, (Ids{4, 5, 6}));
  EXPECT_EQ(h.seen[0].start, std::nullopt);  // count length: no start
  EXPECT_EQ(h.seen[0].end, h.now);           // processing time: the trigger's instant
  EXPECT_EQ(h.Acked(), (Ids{1, 2, 3}));      // acked as they left; the bolt's Ack is ignored
  ASSERT_EQ(h.out.emitted.size(), 3u);
  // The unanchored emit was anchored to every tuple of its window.
  EXPECT_EQ(h.out.anchor_ids[1], (Ids{2, 3, 4}));
  EXPECT_EQ(h.out.emitted[1].values, (Values{3}));

  h.Send(7);
  h.bolt->OnEndOfStream();  // fires once more (7 is new), then acks everything held
  ASSERT_EQ(h.seen.size(), 4u);
  EXPECT_EQ(h.seen[3].events, (Ids{5, 6, 7}));
  EXPECT_EQ(h.seen[3].news, (Ids{7}));
  EXPECT_EQ(h.Acked(), (Ids{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(h.out.failed.empty());
}

TEST(WindowedBoltTest, ABoltThatDoesNotReadExpiredGetsTheSameWindowsAndAcksWithoutTheList) {
  Harness h(WindowConfig::Sliding(WindowSpan::Count(3), WindowSpan::Count(2)));
  h.recording->reads_expired = false;
  h.recording->fail_first = true;
  h.Prepare();
  for (int64_t id = 1; id <= 6; ++id) h.Send(id);
  ASSERT_EQ(h.seen.size(), 3u);
  EXPECT_EQ(h.seen[1].events, (Ids{2, 3, 4}));
  EXPECT_EQ(h.seen[1].news, (Ids{3, 4}));
  EXPECT_TRUE(h.seen[1].expired.empty());  // 1 left, but is not listed
  EXPECT_EQ(h.seen[2].events, (Ids{4, 5, 6}));
  EXPECT_TRUE(h.seen[2].expired.empty());
  // Each window's first tuple was failed (1, 2, 4): they fail as they leave, the others are
  // acked, as when the list is kept.
  EXPECT_EQ(h.Acked(), (Ids{3}));
  h.bolt->OnEndOfStream();
  EXPECT_EQ(h.Acked(), (Ids{3, 5, 6}));
  std::vector<int64_t> failed;
  for (const Tuple& t : h.out.failed) failed.push_back(t.GetInt(0));
  EXPECT_EQ(failed, (Ids{1, 2, 4}));
}

TEST(WindowedBoltTest, AProcessingTimeTumblingWindowFiresOnTicks) {
  Harness h(WindowConfig::Tumbling(WindowSpan::DurationMs(100)));
  EXPECT_EQ(h.bolt->TickInterval(), std::chrono::milliseconds(100));
  h.Prepare();
  const int64_t t0 = h.now;
  h.Send(1);
  h.Tick(50);
  h.Send(2);
  h.Tick(60);  // t0 + 110: the first window (t0 - 1, t0 + 99] fires
  h.Send(3);
  h.Tick(100);  // t0 + 210
  ASSERT_EQ(h.seen.size(), 2u);
  EXPECT_EQ(h.seen[0].events, (Ids{1, 2}));
  EXPECT_EQ(h.seen[0].end, t0 + 99);
  EXPECT_EQ(h.seen[0].start, t0 - 1);
  EXPECT_EQ(h.seen[1].events, (Ids{3}));
  EXPECT_EQ(h.seen[1].expired, (Ids{1, 2}));
  EXPECT_EQ(h.Acked(), (Ids{1, 2}));
}

WindowConfig EventTime(WindowConfig c, int64_t lag, int64_t interval = 0) {
  c.timestamp_field = "ts";
  c.lag_ms = lag;
  c.watermark_interval_ms = interval;
  return c;
}

TEST(WindowedBoltTest, LateTuplesGoToTheLateStreamAnchoredAndAreAcked) {
  WindowConfig c = EventTime(WindowConfig::Tumbling(WindowSpan::DurationMs(10)), 2);
  c.late_stream = "late";
  Harness h(c);
  h.Prepare();
  h.Send(1, 603);
  h.Send(2, 615);  // watermark 613: window (600, 610] fires
  const Tuple& late = h.Send(3, 609);
  ASSERT_EQ(h.seen.size(), 1u);
  EXPECT_EQ(h.seen[0].events, (Ids{1}));
  EXPECT_EQ(h.seen[0].start, 600);
  EXPECT_EQ(h.seen[0].end, 610);
  ASSERT_EQ(h.out.emitted.size(), 2u);
  EXPECT_EQ(h.out.emitted[1].stream, "late");
  EXPECT_EQ(h.out.emitted[1].values, (Values{3, 609}));
  EXPECT_EQ(h.out.emitted[1].anchors, (std::vector<const Tuple*>{&late}));  // the input itself
  EXPECT_EQ(h.out.anchor_ids[0], (Ids{1}));
  EXPECT_EQ(h.Acked(), (Ids{3}));
  EXPECT_EQ(h.out.dropped, 0u);

  h.Send(4, 611);  // below the watermark 613: late too
  EXPECT_EQ(h.Acked(), (Ids{3, 4}));
  h.bolt->OnEndOfStream();
  ASSERT_EQ(h.seen.size(), 2u);
  EXPECT_EQ(h.seen[1].events, (Ids{2}));
  EXPECT_EQ(h.Acked(), (Ids{3, 4, 1, 2}));
}

TEST(WindowedBoltTest, PerInputLateRoutesSendEachInputsLateTuplesToItsOwnStream) {
  std::vector<RecordingBolt::Seen> seen;
  WindowConfig c = EventTime(WindowConfig::Tumbling(WindowSpan::DurationMs(10)), 0);
  c.late_stream = "late";  // the bolt-level one, for inputs without a route
  Harness h(c, 2);
  h.bolt = AdaptWindowedBolt(std::make_unique<RecordingBolt>(&seen), c, Fields{"id", "ts"},
                             {LateRoute{"s2", false, "late_s2", Fields{"id", "ts"}}},
                             [&h] { return h.now; });
  topology::OutputFieldsDeclarer d("win");
  h.bolt->DeclareOutputFields(d);
  std::vector<std::string> streams;
  for (const auto& schema : d.TakeStreams()) streams.push_back(schema->stream);
  EXPECT_EQ(streams, (std::vector<std::string>{"default", "late", "late_s2"}));
  h.Prepare();
  h.Send(1, 50, 1);
  h.Send(2, 60, 2);                     // watermark 50
  h.Send(3, 40, 1);                     // late, input s1: the bolt-level stream
  h.Send(4, 45, 2);                     // late, input s2: its own
  ASSERT_EQ(h.out.emitted.size(), 3u);  // window (40, 50] and the two late tuples
  EXPECT_EQ(h.out.emitted[1].stream, "late");
  EXPECT_EQ(h.out.emitted[1].values, (Values{3, 40}));
  EXPECT_EQ(h.out.emitted[2].stream, "late_s2");
  EXPECT_EQ(h.out.emitted[2].values, (Values{4, 45}));

  // A stream shared by routes must have one set of fields.
  EXPECT_THROW(AdaptWindowedBolt(std::make_unique<RecordingBolt>(&seen), c, Fields{"id", "ts"},
                                 {LateRoute{"s2", false, "late", Fields{"other"}}}),
               std::invalid_argument);
}

TEST(WindowedBoltTest, WithoutALateStreamLateTuplesAreDroppedCountedAndAcked) {
  Harness h(EventTime(WindowConfig::Tumbling(WindowSpan::DurationMs(10)), 0));
  h.Prepare();
  h.Send(1, 620);
  h.Send(2, 619);
  h.Send(3, 100);
  EXPECT_EQ(h.out.dropped, 2u);
  EXPECT_EQ(h.out.dropped_by_cause, (topology::NamedCounts{{"late", 2}}));
  EXPECT_EQ(h.Acked(), (Ids{2, 3}));
  ASSERT_EQ(h.out.emitted.size(), 1u);  // only the window (610, 620] of tuple 1
  EXPECT_EQ(h.out.emitted[0].stream, "default");
}

// Event times at the ends of int64 saturate instead of wrapping: every tuple is in a window whose
// bounds are in order, none is lost or counted late.
TEST(WindowedBoltTest, EventTimesAtTheInt64LimitsStayInWindows) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  for (const std::vector<int64_t>& times : {std::vector<int64_t>{kMax - 50, kMax - 10, kMax},
                                            std::vector<int64_t>{kMin, kMin + 1, kMin + 50}}) {
    SCOPED_TRACE(times[0]);
    Harness h(EventTime(
        WindowConfig::Sliding(WindowSpan::DurationMs(100), WindowSpan::DurationMs(30)), 0));
    h.Prepare();
    for (std::size_t i = 0; i < times.size(); ++i) h.Send(static_cast<int64_t>(i), times[i]);
    h.bolt->OnEndOfStream();
    std::set<int64_t> windowed;
    for (const RecordingBolt::Seen& w : h.seen) {
      ASSERT_TRUE(w.start.has_value());
      EXPECT_LE(*w.start, w.end);
      for (int64_t id : w.events) windowed.insert(id);
    }
    EXPECT_EQ(windowed, (std::set<int64_t>{0, 1, 2}));
    EXPECT_EQ(h.out.dropped, 0u);
    EXPECT_EQ(h.Acked().size(), 3u);
  }
}

// A tuple at the watermark is not late (Storm), but once the window ending there has fired no
// window can take it: it is late then, not silently expired. Sliding windows still take it.
TEST(WindowedBoltTest, ATupleAtTheEndOfAFiredTumblingWindowIsLate) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  for (const int64_t end : {int64_t{50}, kMax}) {
    SCOPED_TRACE(end);
    Harness h(EventTime(WindowConfig::Tumbling(WindowSpan::DurationMs(10)), 0));
    h.Prepare();
    h.Send(1, end - 5);
    h.Send(2, end);  // watermark `end`: the window ending there fires
    ASSERT_EQ(h.seen.size(), 1u);
    h.Send(3, end);
    EXPECT_EQ(h.out.dropped, 1u);
    EXPECT_EQ(h.Acked(), (Ids{3}));
    h.bolt->OnEndOfStream();
    EXPECT_EQ(h.seen.size(), 1u);
    EXPECT_EQ(h.Acked(), (Ids{3, 1, 2}));
  }
  Harness h(
      EventTime(WindowConfig::Sliding(WindowSpan::DurationMs(20), WindowSpan::DurationMs(10)), 0));
  h.Prepare();
  h.Send(1, 45);
  h.Send(2, 50);  // fires (30, 50]
  h.Send(3, 50);  // in (40, 60]
  h.Send(4, 60);  // fires (40, 60]
  EXPECT_EQ(h.out.dropped, 0u);
  ASSERT_EQ(h.seen.size(), 2u);
  EXPECT_EQ(h.seen[1].events, (Ids{1, 2, 3, 4}));
}

TEST(WindowedBoltTest, ATupleWithoutAnIntegerTimestampIsReportedAckedAndDropped) {
  Harness h(EventTime(WindowConfig::Tumbling(WindowSpan::DurationMs(10)), 0));
  h.Prepare();
  Tuple& bad = h.inputs.emplace_back(&h.s1, 1, Values{9, "noon"});
  h.bolt->Execute(bad);
  EXPECT_EQ(h.out.dropped, 1u);
  EXPECT_EQ(h.out.dropped_by_cause, (topology::NamedCounts{{"no_timestamp", 1}}));
  EXPECT_EQ(h.Acked(), (Ids{9}));
  ASSERT_EQ(h.out.errors.size(), 1u);
  EXPECT_NE(h.out.errors[0].find("no integer timestamp in field \"ts\""), std::string::npos);
}

TEST(WindowedBoltTest, AnIdleInputNoLongerHoldsTheWatermarkBack) {
  WindowConfig c = EventTime(WindowConfig::Tumbling(WindowSpan::DurationMs(10)), 0, 100);
  c.idle_timeout_ms = 500;
  Harness h(c, /*streams=*/2);
  EXPECT_EQ(h.bolt->TickInterval(), std::chrono::milliseconds(100));
  h.Prepare();
  h.Send(1, 5, 1);
  h.Send(2, 15, 1);
  h.Send(3, 25, 1);
  for (int i = 0; i < 4; ++i) h.Tick(100);  // 400 ms: stream 2 silent, not idle yet
  EXPECT_TRUE(h.seen.empty());
  h.Send(4, 35, 1);  // stream 1 stays active
  h.Tick(100);       // 500 ms: stream 2 is idle, the watermark is stream 1's: 35
  ASSERT_EQ(h.seen.size(), 3u);
  EXPECT_EQ(h.seen[0].events, (Ids{1}));
  EXPECT_EQ(h.seen[1].events, (Ids{2}));
  EXPECT_EQ(h.seen[2].events, (Ids{3}));
}

TEST(WindowedBoltTest, WithoutIdleTimeoutASilentInputHoldsTheWatermarkAsInStorm) {
  Harness h(EventTime(WindowConfig::Tumbling(WindowSpan::DurationMs(10)), 0, 100), 2);
  h.Prepare();
  h.Send(1, 5, 1);
  h.Send(2, 25, 1);
  for (int i = 0; i < 50; ++i) h.Tick(100);
  EXPECT_TRUE(h.seen.empty());
  h.bolt->OnSourceEnded("s2");   // its source ended: it holds nothing back any more
  ASSERT_EQ(h.seen.size(), 1u);  // watermark 25: the window (0, 10]
  EXPECT_EQ(h.seen[0].events, (Ids{1}));
  h.bolt->OnEndOfStream();
  ASSERT_EQ(h.seen.size(), 2u);
  EXPECT_EQ(h.seen[1].events, (Ids{2}));
}

TEST(WindowedBoltTest, AFailedOrThrowingWindowFailsItsTuplesWhenTheyLeave) {
  Harness h(WindowConfig::Tumbling(WindowSpan::Count(2)));
  h.Prepare();
  h.recording->fail_first = true;
  h.Send(1);
  h.Send(2);  // window {1, 2}: the bolt fails 1
  h.recording->fail_first = false;
  h.recording->throw_next = true;
  h.Send(3);
  h.Send(4);  // window {3, 4} throws: both will fail; 1 fails and 2 is acked as they leave
  EXPECT_EQ(h.Acked(), (Ids{2}));
  ASSERT_EQ(h.out.failed.size(), 1u);
  EXPECT_EQ(h.out.failed[0].GetInt(0), 1);
  ASSERT_EQ(h.out.errors.size(), 1u);
  EXPECT_NE(h.out.errors[0].find("boom"), std::string::npos);
  h.recording->throw_next = false;
  h.bolt->OnEndOfStream();
  ASSERT_EQ(h.out.failed.size(), 3u);
  EXPECT_EQ(h.out.failed[1].GetInt(0), 3);
  EXPECT_EQ(h.out.failed[2].GetInt(0), 4);
}

TEST(WindowedBoltTest, AReplayAfterTheFlushIsAWindowOfItsOwnAtOnce) {
  Harness h(EventTime(WindowConfig::Tumbling(WindowSpan::DurationMs(10)), 0));
  h.Prepare();
  h.Send(1, 5);
  h.bolt->OnEndOfStream();
  ASSERT_EQ(h.seen.size(), 1u);
  h.Send(1, 5);  // replayed: below the final watermark, yet processed, not late
  ASSERT_EQ(h.seen.size(), 2u);
  EXPECT_EQ(h.seen[1].events, (Ids{1}));
  EXPECT_EQ(h.seen[1].end, 5);
  EXPECT_EQ(h.Acked(), (Ids{1, 1}));
  EXPECT_EQ(h.out.dropped, 0u);
}

// A count window of 1e9 on an unbounded input used to grow without a word: what a count window
// can hold is known at load, a warning past the budget, an error past the limit.
TEST(WindowedBoltTest, ACountWindowPastTheMemoryBudgetIsWarnedAboutAndPastTheLimitRefused) {
  topology::TopologyConfig topo;  // budget 1024 MiB, no limit
  const WindowConfig huge = WindowConfig::Tumbling(WindowSpan::Count(1'000'000'000));
  EXPECT_EQ(WindowMemoryWarning(huge, topo),
            "a count window of 1000000000 tuples holds at least 61035 MiB (64 bytes a tuple), "
            "more than topology.window.memory.budget.mb 1024");
  EXPECT_EQ(WindowMemoryWarning(WindowConfig::Tumbling(WindowSpan::Count(1'000'000)), topo), "");
  EXPECT_EQ(WindowMemoryWarning(WindowConfig::Tumbling(WindowSpan::DurationMs(1000)), topo), "");
  EXPECT_NO_THROW(ValidateWindowFitsTopology(huge, topo));
  topo.window_memory_limit_mb = 2048;
  try {
    ValidateWindowFitsTopology(huge, topo);
    ADD_FAILURE() << "a window past the limit was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "a count window of 1000000000 tuples holds at least 61035 MiB (64 bytes a "
                 "tuple), more than topology.window.memory.limit.mb 2048");
  }
  // Past INT64_MAX bytes, saturated rather than wrapped to a small number.
  const WindowConfig absurd = WindowConfig::Tumbling(WindowSpan::Count(int64_t{1} << 62));
  EXPECT_EQ(CountWindowBytes(absurd), std::numeric_limits<int64_t>::max());
  topo.window_memory_budget_mb = 0;  // no warning
  EXPECT_EQ(WindowMemoryWarning(huge, topo), "");
}

// A window whose size only shows while it runs (a duration window) is warned about once it holds
// more than the budget.
TEST(WindowedBoltTest, ARunningWindowPastTheMemoryBudgetIsWarnedAboutOnce) {
  topology::TopologyConfig topo;
  topo.acker_executors = 0;
  topo.window_memory_budget_mb = 1;
  Harness h(WindowConfig::Tumbling(WindowSpan::DurationMs(1000)), 1, topo);
  h.Prepare();
  testing::LogCapture log;
  // 1 MiB at no less than sizeof(Tuple) + 64 bytes a tuple: a few thousand tuples.
  const int64_t over = (int64_t{1} << 20) / static_cast<int64_t>(sizeof(Tuple) + 64) + 4096;
  for (int64_t i = 0; i < 2 * over; ++i) h.Send(i);
  const std::string text = log.Text();
  EXPECT_NE(text.find("warning component 'win' task 2: its window holds "), std::string::npos)
      << text;
  EXPECT_NE(text.find("more than topology.window.memory.budget.mb 1; it may run out of memory"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("window holds", text.find("window holds") + 1), std::string::npos)
      << "warned twice: " << text;
  EXPECT_TRUE(h.seen.empty());  // the window has not fired: it holds them all
}

TEST(WindowedBoltTest, TheWindowMustFitTheMessageTimeoutAndMaxSpoutPending) {
  auto error = [](WindowConfig c, topology::TopologyConfig topo) -> std::string {
    try {
      ValidateWindowFitsTopology(c, topo);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(fits)";
  };
  topology::TopologyConfig topo;  // timeout 30 s
  EXPECT_EQ(error(WindowConfig::Tumbling(WindowSpan::DurationMs(15000)), topo), "(fits)");
  EXPECT_EQ(error(WindowConfig::Tumbling(WindowSpan::DurationMs(20000)), topo),
            "Window duration (length + sliding interval) value 40000 is more than "
            "topology.message.timeout.secs value 30000");
  EXPECT_EQ(error(WindowConfig::Sliding(WindowSpan::DurationMs(29000), WindowSpan::Count(5)), topo),
            "(fits)");
  topo.max_spout_pending = 100;
  EXPECT_EQ(error(WindowConfig::Sliding(WindowSpan::Count(90), WindowSpan::Count(20)), topo),
            "Window count (length + sliding interval) value 110 is more than "
            "topology.max.spout.pending value 100");
  topo.acker_executors = 0;  // nothing is tracked: nothing can time out
  EXPECT_EQ(error(WindowConfig::Tumbling(WindowSpan::DurationMs(20000)), topo), "(fits)");

  // Prepare checks it too (the C++ path has no load-time check).
  topology::TopologyConfig strict;
  strict.message_timeout_secs = 1;
  Harness h(WindowConfig::Tumbling(WindowSpan::DurationMs(600)), 1, strict);
  EXPECT_THROW(h.Prepare(), std::invalid_argument);
}

TEST(WindowedBoltTest, ConfigValuesAreChecked) {
  EXPECT_THROW(AdaptWindowedBolt(nullptr, WindowConfig{}), std::invalid_argument);
  std::vector<RecordingBolt::Seen> seen;
  WindowConfig c = WindowConfig::Tumbling(WindowSpan::Count(0));
  EXPECT_THROW(AdaptWindowedBolt(std::make_unique<RecordingBolt>(&seen), c), std::invalid_argument);
  c = EventTime(WindowConfig::Tumbling(WindowSpan::Count(2)), 0);
  c.late_stream = "late";
  EXPECT_THROW(AdaptWindowedBolt(std::make_unique<RecordingBolt>(&seen), c),
               std::invalid_argument);  // no fields to declare the late stream with
}

// Gauges: what ReportGauge last set, by name, in first-reported order.
using Gauges = std::vector<std::pair<std::string, uint64_t>>;

// The rows the window holds are a gauge, reported on ticks (between windows too) and at the end;
// a fired tumbling window's tuples count until the next window evicts them.
TEST(WindowedBoltGaugesTest, TicksReportTheRowsTheWindowHolds) {
  Harness h(WindowConfig::Tumbling(WindowSpan::DurationMs(100)));
  h.Prepare();
  h.Send(1);
  EXPECT_TRUE(h.out.gauges.empty());  // not per tuple
  h.Tick(50);
  EXPECT_EQ(h.out.gauges, (Gauges{{"window rows", 1}}));  // processing time: no watermark
  h.Send(2);
  h.Tick(60);  // t0 + 110: the window (t0 - 1, t0 + 99] fires
  ASSERT_EQ(h.seen.size(), 1u);
  EXPECT_EQ(h.out.gauges, (Gauges{{"window rows", 2}}));
  h.Send(3);
  h.Tick(100);  // t0 + 210: 1 and 2 leave, 3 is the second window
  ASSERT_EQ(h.seen.size(), 2u);
  EXPECT_EQ(h.out.gauges, (Gauges{{"window rows", 1}}));
  h.bolt->OnEndOfStream();
  EXPECT_EQ(h.out.gauges, (Gauges{{"window rows", 0}}));
}

// Without ticks (watermark_interval_ms 0) the gauges are reported after a tuple that fired a
// window, with the watermark and how far it trails the clock.
TEST(WindowedBoltGaugesTest, AFiredWindowReportsItsRowsAndTheWatermark) {
  Harness h(EventTime(WindowConfig::Tumbling(WindowSpan::DurationMs(10)), 2));
  EXPECT_EQ(h.bolt->TickInterval(), std::chrono::milliseconds(0));
  h.Prepare();
  h.Send(1, 603);
  h.Send(2, 605);  // watermark 603: nothing fires
  EXPECT_TRUE(h.out.gauges.empty());
  h.Send(3, 615);  // watermark 613: (600, 610] fires; 615 waits
  ASSERT_EQ(h.seen.size(), 1u);
  EXPECT_EQ(
      h.out.gauges,
      (Gauges{{"window rows", 3}, {"watermark ms", 613}, {"watermark lag ms", 1'000'000 - 613}}));
  h.now += 1000;
  h.Send(4, 616);  // watermark 614, no window fires: not reported
  EXPECT_EQ(h.out.gauges[0], (std::pair<std::string, uint64_t>{"window rows", 3}));
  h.Send(5, 628);  // watermark 626: (610, 620] fires, 603 and 605 leave
  ASSERT_EQ(h.seen.size(), 2u);
  EXPECT_EQ(
      h.out.gauges,
      (Gauges{{"window rows", 3}, {"watermark ms", 626}, {"watermark lag ms", 1'001'000 - 626}}));
  h.bolt->OnEndOfStream();  // every window fired, every tuple left
  EXPECT_EQ(
      h.out.gauges,
      (Gauges{{"window rows", 0}, {"watermark ms", 626}, {"watermark lag ms", 1'001'000 - 626}}));
}

// Before every input has delivered, idled or ended there is no watermark, and no gauge of it.
TEST(WindowedBoltGaugesTest, TheWatermarkGaugesWaitForAWatermark) {
  Harness h(EventTime(WindowConfig::Tumbling(WindowSpan::DurationMs(10)), 0, 100), 2);
  h.Prepare();
  h.Send(1, 5, 1);
  h.Tick(100);  // stream 2 has sent nothing
  EXPECT_EQ(h.out.gauges, (Gauges{{"window rows", 1}}));
  h.Send(2, 25, 1);
  h.bolt->OnSourceEnded("s2");  // watermark 25: (0, 10] fires, then (10, 20] evicts 5
  ASSERT_EQ(h.seen.size(), 1u);
  EXPECT_EQ(
      h.out.gauges,
      (Gauges{{"window rows", 1}, {"watermark ms", 25}, {"watermark lag ms", 1'000'100 - 25}}));
}

}  // namespace
}  // namespace tempest::bolts

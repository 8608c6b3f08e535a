// IntervalJoinBolt: a show log joined with a click log, tuple by tuple through a fake collector
// with the watermark after every tuple, so each output row, ack and padded row is checked in
// order: inner, left, right and full joins, `_ts`, anchoring and acking when tuples leave, late
// tuples (late streams, dropped and counted, never padded), null keys, bad timestamps, end of
// input, replays after it, and every validation message.
#include "bolts/join/interval_join_bolt.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>

#include "../../support/builtin_test_support.h"
#include "topology/output_collector.h"
#include "topology/row_batch.h"

namespace tempest::bolts {
namespace {

using testing::FakeBoltCollector;
using topology::Fields;
using topology::Tuple;
using topology::Value;
using topology::Values;

const Fields kShowFields{"log_id", "ad", "ts"};
const Fields kClickFields{"log_id", "ts"};
const Value kNull;

// A collector that also takes rows in one call, as the runtime's does: it records the rows of
// each EmitRows call (built as cells where the filler can) as emits, and how many each call had.
class FakeRowCollector final : public FakeBoltCollector, public topology::RowEmitter {
 public:
  std::vector<std::size_t> row_calls;

  void EmitRows(std::string_view stream, std::size_t count, topology::RowFiller& filler) override {
    row_calls.push_back(count);
    for (std::size_t i = 0; i < count; ++i) {
      Values values;
      if (filler.FillsCells()) {
        topology::RowBatch batch;
        batch.EndRow(nullptr, filler.FillCells(i, batch), 0);
        batch[0].LoadValues(values);
      } else {
        filler.Fill(i, values);
      }
      Emit(stream, std::move(values));
    }
  }
};

// Streams "shows" and "clicks" of component "logs", feeding bolt "join" (selector: stream).
class Harness {
 public:
  explicit Harness(int parallelism = 1,
                   topology::GroupingType grouping = topology::GroupingType::kGlobal) {
    auto spec = std::make_shared<topology::TopologySpec>();
    topology::ComponentSpec src;
    src.id = "logs";
    src.kind = topology::ComponentKind::kSpout;
    topology::ComponentSpec bolt;
    bolt.id = "join";
    bolt.parallelism = parallelism;
    for (const auto& [name, fields] : {std::pair{"shows", kShowFields}, {"clicks", kClickFields}}) {
      auto schema = std::make_shared<topology::StreamSchema>();
      schema->component = "logs";
      schema->stream = name;
      schema->fields = std::make_shared<const Fields>(fields);
      src.streams.push_back(schema);
      schemas_[name] = schema.get();
      topology::GroupingSpec g;
      g.type = grouping;
      if (grouping == topology::GroupingType::kFields) g.fields = {"log_id"};
      bolt.inputs.push_back({topology::GlobalStreamId{"logs", name}, g});
    }
    spec->components.push_back(src);
    spec->components.push_back(bolt);
    spec_ = spec;
  }

  topology::TopologyConfig& config() { return spec_->config; }

  // `row_emitter`: the bolt emits into row_out, a collector that takes rows, instead of `out`.
  void Start(IntervalJoinBoltConfig config, bool row_emitter = false) {
    bolt_ = std::make_unique<IntervalJoinBolt>(std::move(config), kShowFields, kClickFields,
                                               [this] { return now; });
    auto layout = std::make_shared<const topology::TaskLayout>(*spec_);
    context_ =
        std::make_unique<topology::TopologyContext>(spec_, layout, layout->TasksOf("join").front());
    active_ = row_emitter ? &row_out : &out;
    bolt_->Prepare(*context_, *active_);
  }
  std::string StartError(IntervalJoinBoltConfig config) {
    try {
      Start(std::move(config));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(prepared)";
  }

  // Sends one tuple (moved in, as the runtime does) and returns it as the collector will see it.
  void Show(Value id, int64_t ts, std::string ad = "ad") {
    Send("shows", {std::move(id), Value(std::move(ad)), Value(ts)});
  }
  void Click(Value id, int64_t ts) { Send("clicks", {std::move(id), Value(ts)}); }
  void Send(const std::string& stream, Values values) {
    Tuple t(schemas_.at(stream), 1, std::move(values));
    if (tracked) tempest::topology::TupleAccess::MutableAck(t).anchors.push_back({++root_, 1});
    bolt_->ExecuteOwned(t);
  }
  // Sends the inputs as one batch through the batch path, tracked as Send tracks them.
  void SendBatch(const std::vector<std::pair<std::string, Values>>& inputs) {
    topology::RowBatch batch;
    for (const auto& [stream, values] : inputs) {
      const topology::AckMeta::Anchor anchor{++root_, 1};
      batch.Append(schemas_.at(stream), values,
                   tracked ? std::span(&anchor, 1) : std::span<const topology::AckMeta::Anchor>());
    }
    testing::FakeBatchCollector collector(*bolt_, *active_);
    bolt_->ExecuteBatch(batch, collector);
  }
  void End() { bolt_->OnEndOfStream(); }
  void Tick() { bolt_->OnTick(); }

  std::vector<Values> Rows(const std::string& stream = "default") const {
    std::vector<Values> rows;
    for (const auto& e : active_->emitted) {
      if (e.stream == stream) rows.push_back(e.values);
    }
    return rows;
  }
  // The first value of every acked tuple with its stream, in ack order.
  std::vector<std::string> Acked() const {
    std::vector<std::string> out_;
    for (const Tuple& t : out.acked) {
      out_.push_back(t.GetSourceStreamId() + ":" + t.GetValue(0).ToString() + "@" +
                     t.GetValues().back().ToString());
    }
    return out_;
  }

  FakeBoltCollector out;
  FakeRowCollector row_out;
  int64_t now = 0;      // the bolt's clock
  bool tracked = true;  // inputs carry ack anchors, as with acking on

 private:
  std::shared_ptr<topology::TopologySpec> spec_;
  std::map<std::string, const topology::StreamSchema*> schemas_;
  std::unique_ptr<topology::TopologyContext> context_;
  std::unique_ptr<IntervalJoinBolt> bolt_;
  FakeBoltCollector* active_ = &out;
  uint64_t root_ = 100;
};

IntervalJoinBoltConfig ShowsClicks(JoinType type, int64_t lower = 0, int64_t upper = 10) {
  IntervalJoinBoltBuilder b(JoinSelector::kStream, {"shows", {"log_id"}, "ts"},
                            {"clicks", {"log_id"}, "ts"});
  b.Between(lower, upper).Type(type).Select("shows:log_id, clicks:ts AS click_ts, _ts");
  b.WithWatermarkInterval(0);
  return b.config();
}

// The shared sequence: shows 1@0, 2@2, 3@5, 4@40; clicks of show 1 at 3 and 8, of show 3 at 30
// (outside its [5, 15]) and of an unknown show 9 at 31.
void SendShowsAndClicks(Harness& h) {
  h.Show(1, 0);
  h.Show(2, 2);
  h.Click(1, 3);  // (1, 3); watermark min(2, 3) = 2
  h.Show(3, 5);   // watermark 3: click 1@3 stays (a click at 3 is not late yet)
  h.Click(1, 8);  // (1, 8); watermark 5: click 1@3 leaves (right cleanup: ts + max(-0, 0))
  h.Click(3, 30);
  h.Click(9, 31);
  h.Show(4, 40);  // watermark 31: shows 1, 2, 3 leave (left cleanup: ts + 10), clicks 8, 30
}

TEST(IntervalJoinBoltTest, LeftJoinEmitsEveryShowOnceMatchedOrPaddedWhenItLeaves) {
  Harness h;
  h.Start(ShowsClicks(JoinType::kLeft));
  SendShowsAndClicks(h);
  const std::vector<Values> before_end = {{1, 3, 3}, {1, 8, 8}, {2, kNull, 2}, {3, kNull, 5}};
  EXPECT_EQ(h.Rows(), before_end);
  EXPECT_EQ(h.Acked(), (std::vector<std::string>{"clicks:1@3", "clicks:1@8", "shows:1@0",
                                                 "shows:2@2", "shows:3@5", "clicks:3@30"}));
  h.End();  // show 4 and click 9 leave: show 4 padded
  std::vector<Values> all = before_end;
  all.push_back({4, kNull, 40});
  EXPECT_EQ(h.Rows(), all);
  EXPECT_EQ(h.out.acked.size(), 8u);
  EXPECT_TRUE(h.out.failed.empty());
  EXPECT_TRUE(h.out.errors.empty());
}

TEST(IntervalJoinBoltTest, StringKeysStillMatchOnceTheTupleIsMovedIntoTheState) {
  // The key is read from the tuple the runtime hands over and moves in: a string key must be
  // copied before the move empties it.
  Harness h;
  h.Start(ShowsClicks(JoinType::kInner));
  h.Show("show-with-a-long-log-id", 0);
  h.Click("show-with-a-long-log-id", 2);
  h.Show("s2", 1);
  h.Click("s2", 3);
  h.End();
  EXPECT_EQ(h.Rows(), (std::vector<Values>{{"show-with-a-long-log-id", 2, 2}, {"s2", 3, 3}}));
}

TEST(IntervalJoinBoltTest, InnerJoinEmitsOnlyPairsAndAcksEverythingByTheEnd) {
  Harness h;
  h.Start(ShowsClicks(JoinType::kInner));
  SendShowsAndClicks(h);
  h.End();
  EXPECT_EQ(h.Rows(), (std::vector<Values>{{1, 3, 3}, {1, 8, 8}}));
  EXPECT_EQ(h.out.acked.size(), 8u);
}

TEST(IntervalJoinBoltTest, RightJoinPadsClicksWithoutAShow) {
  Harness h;
  h.Start(ShowsClicks(JoinType::kRight));
  SendShowsAndClicks(h);
  EXPECT_EQ(h.Rows(), (std::vector<Values>{{1, 3, 3}, {1, 8, 8}, {kNull, 30, 30}}));
  h.End();
  EXPECT_EQ(h.Rows(),
            (std::vector<Values>{{1, 3, 3}, {1, 8, 8}, {kNull, 30, 30}, {kNull, 31, 31}}));
}

TEST(IntervalJoinBoltTest, FullJoinPadsBothSidesInTheOrderTheyLeave) {
  Harness h;
  h.Start(ShowsClicks(JoinType::kFull));
  SendShowsAndClicks(h);
  h.End();
  // Leaving order: cleanup time, then arrival: show 2 (12), show 3 (15), click 30 (30); at the
  // end click 31 (31), show 4 (50).
  EXPECT_EQ(h.Rows(), (std::vector<Values>{{1, 3, 3},
                                           {1, 8, 8},
                                           {2, kNull, 2},
                                           {3, kNull, 5},
                                           {kNull, 30, 30},
                                           {kNull, 31, 31},
                                           {4, kNull, 40}}));
}

TEST(IntervalJoinBoltTest, RowsAreAnchoredToTheTuplesTheyJoinAndInputsAckedOnlyWhenTheyLeave) {
  Harness h;
  h.Start(ShowsClicks(JoinType::kLeft));
  h.Show(1, 0);
  h.Click(1, 4);
  ASSERT_EQ(h.out.emitted.size(), 1u);
  const auto& joined = h.out.emitted[0];
  ASSERT_EQ(joined.anchors.size(), 2u);
  EXPECT_EQ(joined.anchors[0]->GetSourceStreamId(), "shows");
  EXPECT_EQ(joined.anchors[1]->GetSourceStreamId(), "clicks");
  EXPECT_EQ(tempest::topology::TupleAccess::Ack(*joined.anchors[0]).anchors.front().root, 101u);
  EXPECT_EQ(tempest::topology::TupleAccess::Ack(*joined.anchors[1]).anchors.front().root, 102u);
  EXPECT_TRUE(h.out.acked.empty());  // both still held: a crash now replays them
  h.Show(2, 20);                     // watermark 4: the click is at it, so it stays
  EXPECT_TRUE(h.out.acked.empty());
  h.Click(5, 20);  // watermark 20: the click and show 1 leave (matched: no padded row)
  EXPECT_EQ(h.Acked(), (std::vector<std::string>{"clicks:1@4", "shows:1@0"}));
  h.End();
  ASSERT_EQ(h.out.emitted.size(), 2u);
  ASSERT_EQ(h.out.emitted[1].anchors.size(), 1u);  // padded show 2: anchored to it alone
  EXPECT_EQ(tempest::topology::TupleAccess::Ack(*h.out.emitted[1].anchors[0]).anchors.front().root,
            103u);
  EXPECT_EQ(h.out.emitted[1].values, (Values{2, kNull, 20}));
}

TEST(IntervalJoinBoltTest, LateTuplesGoToTheirSidesLateStreamAndAreNeverPadded) {
  Harness h;
  IntervalJoinBoltConfig c = ShowsClicks(JoinType::kFull);
  c.left.late_stream = "late_shows";
  c.right.late_stream = "late_clicks";
  h.Start(c);
  h.Show(1, 100);
  h.Click(1, 105);  // watermark 100
  h.Show(2, 99);    // late
  h.Click(2, 50);   // late
  h.Show(3, 100);   // at the watermark: not late
  EXPECT_EQ(h.Rows("late_shows"), (std::vector<Values>{{2, "ad", 99}}));
  EXPECT_EQ(h.Rows("late_clicks"), (std::vector<Values>{{2, 50}}));
  h.End();
  EXPECT_EQ(h.Rows(), (std::vector<Values>{{1, 105, 105}, {3, kNull, 100}}));
  EXPECT_EQ(h.out.acked.size(), 5u);
  EXPECT_EQ(h.out.dropped, 0u);
  // Late rows are anchored to the late tuple.
  for (const auto& e : h.out.emitted) {
    if (e.stream.rfind("late_", 0) == 0) {
      EXPECT_EQ(e.anchors.size(), 1u);
    }
  }
}

TEST(IntervalJoinBoltTest, WithoutALateStreamLateTuplesAreAckedDroppedAndCounted) {
  Harness h;
  h.Start(ShowsClicks(JoinType::kLeft));
  h.Show(1, 100);
  h.Click(1, 100);
  h.Show(2, 10);
  h.End();
  EXPECT_EQ(h.Rows(), (std::vector<Values>{{1, 100, 100}}));
  EXPECT_EQ(h.out.dropped, 1u);
  EXPECT_EQ(h.out.dropped_by_cause, (topology::NamedCounts{{"late", 1}}));
  EXPECT_EQ(h.out.acked.size(), 3u);
}

TEST(IntervalJoinBoltTest, NullKeysMatchNothingAndPreservedOnesArePaddedAtOnce) {
  Harness h;
  h.Start(ShowsClicks(JoinType::kLeft));
  h.Show(kNull, 0);
  EXPECT_EQ(h.Rows(), (std::vector<Values>{{kNull, kNull, 0}}));
  EXPECT_EQ(h.out.acked.size(), 1u);
  h.Click(kNull, 1);  // not a preserved side: acked, dropped, counted
  EXPECT_EQ(h.out.acked.size(), 2u);
  EXPECT_EQ(h.out.dropped, 1u);
  EXPECT_EQ(h.out.dropped_by_cause, (topology::NamedCounts{{"null_key", 1}}));
  EXPECT_EQ(h.Rows().size(), 1u);
}

TEST(IntervalJoinBoltTest, ATupleWithoutAnIntegerTimestampIsReportedAckedAndDropped) {
  Harness h;
  h.Start(ShowsClicks(JoinType::kLeft));
  h.Send("shows", {1, "ad", "noon"});
  ASSERT_EQ(h.out.errors.size(), 1u);
  EXPECT_EQ(h.out.errors[0],
            "tuple logs:shows[1] [1,\"ad\",\"noon\"] has no integer timestamp in field \"ts\"; "
            "acked and dropped");
  EXPECT_EQ(h.out.acked.size(), 1u);
  EXPECT_EQ(h.out.dropped, 1u);
  EXPECT_EQ(h.out.dropped_by_cause, (topology::NamedCounts{{"no_timestamp", 1}}));
  EXPECT_TRUE(h.Rows().empty());
}

// Inputs fed as batches (rows packed from their cells, joined as held rows) give the same output
// rows, anchors, late rows, acks, reports and counts as tuple by tuple: a full join with string
// keys (one longer than a cell), late rows of both sides, null keys and a bad timestamp.
TEST(IntervalJoinBoltTest, BatchesJoinAsTuplesDo) {
  IntervalJoinBoltConfig c = ShowsClicks(JoinType::kFull);
  c.left.late_stream = "late_shows";
  c.right.late_stream = "late_clicks";
  const std::string long_id = "a log id longer than a cell";
  const std::vector<std::pair<std::string, Values>> inputs = {{"shows", {"a", "ad1", 0}},
                                                              {"shows", {long_id, "ad2", 2}},
                                                              {"clicks", {"a", 3}},
                                                              {"shows", {kNull, "ad3", 4}},
                                                              {"clicks", {long_id, 8}},
                                                              {"clicks", {kNull, 9}},
                                                              {"shows", {"b", "ad4", "noon"}},
                                                              {"clicks", {"a", 30}},
                                                              {"shows", {"c", "ad5", 1}},
                                                              {"clicks", {"c", 2}},
                                                              {"shows", {"d", "ad6", 40}},
                                                              {"clicks", {"d", 45}},
                                                              {"shows", {"a", "ad7", 50}}};
  Harness by_tuple;
  by_tuple.Start(c);
  for (const auto& [stream, values] : inputs) by_tuple.Send(stream, values);
  by_tuple.End();
  Harness by_batch;
  by_batch.Start(c);
  for (std::size_t at = 0; at < inputs.size(); at += 4) {
    by_batch.SendBatch(
        {inputs.begin() + static_cast<std::ptrdiff_t>(at),
         inputs.begin() + static_cast<std::ptrdiff_t>(std::min(at + 4, inputs.size()))});
  }
  by_batch.End();

  // Matched shows are not padded; a null-key show or click is padded at once (both sides are
  // preserved), an unmatched click when it leaves, the last show at the end.
  EXPECT_EQ(by_batch.Rows(), (std::vector<Values>{{"a", 3, 3},
                                                  {kNull, kNull, 4},
                                                  {long_id, 8, 8},
                                                  {kNull, 9, 9},
                                                  {"d", 45, 45},
                                                  {kNull, 30, 30},
                                                  {"a", kNull, 50}}));
  EXPECT_EQ(by_batch.Rows(), by_tuple.Rows());
  EXPECT_EQ(by_batch.Rows("late_shows"), (std::vector<Values>{{"c", "ad5", 1}}));
  EXPECT_EQ(by_batch.Rows("late_clicks"), (std::vector<Values>{{"c", 2}}));
  EXPECT_EQ(by_batch.Rows("late_clicks"), by_tuple.Rows("late_clicks"));
  ASSERT_EQ(by_batch.out.emitted.size(), by_tuple.out.emitted.size());
  for (std::size_t i = 0; i < by_tuple.out.emitted.size(); ++i) {
    EXPECT_EQ(by_batch.out.emitted[i].stream, by_tuple.out.emitted[i].stream) << i;
    EXPECT_EQ(by_batch.out.emitted[i].anchor_roots, by_tuple.out.emitted[i].anchor_roots) << i;
  }
  EXPECT_EQ(by_batch.Acked(), by_tuple.Acked());
  EXPECT_EQ(by_batch.out.acked.size(), inputs.size());
  EXPECT_EQ(by_batch.out.errors, by_tuple.out.errors);
  ASSERT_EQ(by_batch.out.errors.size(), 1u);
  EXPECT_EQ(by_batch.out.dropped, by_tuple.out.dropped);
  EXPECT_EQ(by_batch.out.dropped, 1u);  // the bad timestamp
}

TEST(IntervalJoinBoltTest, NegativeBoundsPairClicksBeforeTheShow) {
  Harness h;
  h.Start(ShowsClicks(JoinType::kInner, -5, -1));  // right.ts in [left.ts - 5, left.ts - 1]
  h.Click(1, 10);
  h.Click(1, 14);
  h.Click(1, 15);
  h.Show(1, 15);  // pairs with 10 and 14, not 15
  h.End();
  EXPECT_EQ(h.Rows(), (std::vector<Values>{{1, 10, 15}, {1, 14, 15}}));
}

TEST(IntervalJoinBoltTest, ExclusiveEndsMoveByOneMillisecond) {
  Harness h;
  IntervalJoinBoltConfig c = ShowsClicks(JoinType::kInner, 0, 10);
  c.lower_inclusive = false;
  c.upper_inclusive = false;
  h.Start(c);
  h.Show(1, 0);
  for (int64_t ts : {0, 1, 9, 10}) h.Click(1, ts);
  h.End();
  EXPECT_EQ(h.Rows(), (std::vector<Values>{{1, 1, 1}, {1, 9, 9}}));
}

TEST(IntervalJoinBoltTest, AReplayAfterTheEndJoinsWhatComesWithItAndLeavesAtOnce) {
  Harness h;
  h.Start(ShowsClicks(JoinType::kLeft));
  h.Show(1, 0);
  h.End();
  EXPECT_EQ(h.Rows(), (std::vector<Values>{{1, kNull, 0}}));
  h.Show(2, 5);  // a replay: nothing is late after the end; it is padded and acked at once
  EXPECT_EQ(h.Rows(), (std::vector<Values>{{1, kNull, 0}, {2, kNull, 5}}));
  EXPECT_EQ(h.out.acked.size(), 2u);
}

TEST(IntervalJoinBoltTest, TheWatermarkWaitsForBothSides) {
  Harness h;
  h.Start(ShowsClicks(JoinType::kLeft));
  for (int64_t ts = 0; ts < 100; ts += 10) h.Show(ts, ts);
  EXPECT_TRUE(h.out.acked.empty());  // no click yet: no watermark, nothing leaves
  h.Click(-1, 1000);
  // The watermark is now 90: shows up to 70 (cleanup 80 < 90) leave, padded.
  EXPECT_EQ(h.Rows().size(), 8u);
}

// Gauges: what ReportGauge last set, by name, in first-reported order.
using Gauges = std::vector<std::pair<std::string, uint64_t>>;

// The rows each side holds and the watermark are gauges, reported when the watermark moves (here
// after tuples: watermark_interval_ms 0), not after every tuple, and at the end.
TEST(IntervalJoinBoltTest, TheStateAndTheWatermarkAreReportedWhenTheWatermarkMoves) {
  Harness h;
  h.now = 1000;
  h.Start(ShowsClicks(JoinType::kLeft));
  h.Show(1, 0);
  h.Show(2, 2);
  EXPECT_TRUE(h.out.gauges.empty());  // no click yet: no watermark
  h.Click(1, 3);                      // watermark 2
  EXPECT_EQ(h.out.gauges, (Gauges{{"state rows left", 2},
                                  {"state rows right", 1},
                                  {"watermark ms", 2},
                                  {"watermark lag ms", 998}}));
  h.Show(3, 5);    // watermark 3
  h.Click(1, 8);   // watermark 5: click 1@3 leaves
  h.Click(3, 30);  // the watermark stays at 5: not reported (the right side holds 2, then 3)
  h.Click(9, 31);
  EXPECT_EQ(h.out.gauges, (Gauges{{"state rows left", 3},
                                  {"state rows right", 1},
                                  {"watermark ms", 5},
                                  {"watermark lag ms", 995}}));
  h.now = 2000;
  h.Show(4, 40);  // watermark 31: shows 1, 2, 3 and clicks 8, 30 leave
  EXPECT_EQ(h.out.gauges, (Gauges{{"state rows left", 1},
                                  {"state rows right", 1},
                                  {"watermark ms", 31},
                                  {"watermark lag ms", 1969}}));
  h.End();  // everything leaves
  EXPECT_EQ(h.out.gauges, (Gauges{{"state rows left", 0},
                                  {"state rows right", 0},
                                  {"watermark ms", 31},
                                  {"watermark lag ms", 1969}}));
}

TEST(IntervalJoinBoltTest, ABatchReportsTheGaugesOnceAfterItsLastRow) {
  Harness h;
  h.now = 1000;
  h.Start(ShowsClicks(JoinType::kLeft));
  // The watermark moves at clicks 1@3 (2), show 4@40 (8: click 3 leaves) and click 9@31 (31:
  // shows 1, 2 and click 8 leave).
  h.SendBatch({{"shows", {1, "ad", 0}},
               {"shows", {2, "ad", 2}},
               {"clicks", {1, 3}},
               {"clicks", {1, 8}},
               {"shows", {4, "ad", 40}},
               {"clicks", {9, 31}}});
  EXPECT_EQ(h.out.gauges, (Gauges{{"state rows left", 1},
                                  {"state rows right", 1},
                                  {"watermark ms", 31},
                                  {"watermark lag ms", 969}}));
}

TEST(IntervalJoinBoltTest, TicksReportTheStateAndTheWatermark) {
  Harness h;
  IntervalJoinBoltConfig c = ShowsClicks(JoinType::kInner);
  c.watermark_interval_ms = 100;
  h.Start(c);
  h.Show(1, 0);
  h.Click(1, 3);
  h.Click(1, 50);
  EXPECT_TRUE(h.out.gauges.empty());  // the watermark moves on ticks only
  h.now = 100;
  h.Tick();  // watermark min(0, 50) = 0: nothing leaves
  EXPECT_EQ(h.out.gauges, (Gauges{{"state rows left", 1},
                                  {"state rows right", 2},
                                  {"watermark ms", 0},
                                  {"watermark lag ms", 100}}));
}

// With acking off and a collector that takes rows (the runtime's), output rows are built as
// cells and sent together, one EmitRows per input batch, tick or end: the rows of tuple-by-tuple
// emits, in the same order, each call's rows out before it returns.
TEST(IntervalJoinBoltTest, UntrackedRowsGoOutTogetherAtTheEndOfEachCall) {
  IntervalJoinBoltConfig c = ShowsClicks(JoinType::kFull);
  c.watermark_interval_ms = 100;  // the watermark moves on ticks
  const std::vector<std::pair<std::string, Values>> inputs = {
      {"shows", {1, "ad", 0}}, {"shows", {2, "ad", 2}},  {"clicks", {1, 3}}, {"clicks", {1, 8}},
      {"clicks", {7, 9}},      {"shows", {4, "ad", 40}}, {"clicks", {4, 45}}};
  Harness by_tuple;
  by_tuple.tracked = false;
  by_tuple.Start(c);
  for (const auto& [stream, values] : inputs) by_tuple.Send(stream, values);
  by_tuple.now = 100;
  by_tuple.Tick();
  by_tuple.End();

  Harness h;
  h.tracked = false;
  h.Start(c, true);
  h.SendBatch(inputs);
  EXPECT_EQ(h.Rows(), (std::vector<Values>{{1, 3, 3}, {1, 8, 8}, {4, 45, 45}}));
  EXPECT_EQ(h.row_out.row_calls, (std::vector<std::size_t>{3}));
  h.now = 100;
  h.Tick();  // watermark 40: click 7@9 and show 2@2 leave, padded, in one call
  const std::vector<Values> all = {{1, 3, 3}, {1, 8, 8}, {4, 45, 45}, {kNull, 9, 9}, {2, kNull, 2}};
  EXPECT_EQ(h.Rows(), all);
  EXPECT_EQ(h.row_out.row_calls, (std::vector<std::size_t>{3, 2}));
  h.End();  // nothing more to pad
  EXPECT_EQ(h.Rows(), all);
  EXPECT_EQ(h.Rows(), by_tuple.Rows());
  EXPECT_EQ(h.row_out.acked.size(), inputs.size());
}

// Untracked rows that leave during a batch are acked, all of them, by the time it returns (in
// one call: an untracked ack is a count), as many as leave when the same inputs come one by one.
TEST(IntervalJoinBoltTest, UntrackedRowsLeavingDuringABatchAreAckedByItsEnd) {
  const std::vector<std::pair<std::string, Values>> inputs = {
      {"shows", {1, "ad", 0}}, {"shows", {2, "ad", 2}}, {"clicks", {1, 3}},
      {"shows", {3, "ad", 5}}, {"clicks", {1, 8}},      {"clicks", {3, 30}},
      {"clicks", {9, 31}},     {"shows", {4, "ad", 40}}};
  Harness by_tuple;
  by_tuple.tracked = false;
  by_tuple.Start(ShowsClicks(JoinType::kInner));
  for (const auto& [stream, values] : inputs) by_tuple.Send(stream, values);
  Harness h;
  h.tracked = false;
  h.Start(ShowsClicks(JoinType::kInner));
  h.SendBatch(inputs);
  // Watermark 31: click 1@3 left at 5; shows 1, 2, 3 and clicks 8, 30 at 31.
  EXPECT_EQ(by_tuple.out.acked.size(), 6u);
  EXPECT_EQ(h.out.acked.size(), 6u);
  EXPECT_EQ(h.Rows(), by_tuple.Rows());
  h.End();
  EXPECT_EQ(h.out.acked.size(), inputs.size());
  EXPECT_TRUE(h.out.failed.empty());
}

// Validation.

TEST(IntervalJoinBoltValidationTest, BoundsAreCheckedWithFlinksMessages) {
  IntervalJoinBoltConfig c = ShowsClicks(JoinType::kInner);
  c.lower_bound_ms = 5;
  c.upper_bound_ms = 3;
  try {
    IntervalJoinBolt bolt(c);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(
        e.what(),
        "lowerBound <= upperBound must be fulfilled (lower_bound_ms 5 > upper_bound_ms 3)");
  }
  IntervalJoinBoltBuilder b(JoinSelector::kStream, {"shows", {"log_id"}, "ts"},
                            {"clicks", {"log_id"}, "ts"});
  try {
    b.Between(1, 0);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "An upper bound needs to be greater than or equal to a lower bound.");
  }
  c = ShowsClicks(JoinType::kInner, 0, 0);
  c.upper_inclusive = false;
  try {
    IntervalJoinBolt bolt(c);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "the interval [0, 0) holds no time: no pair could ever match");
  }
}

TEST(IntervalJoinBoltValidationTest, BothSidesNeedEventTimeAndDistinctNames) {
  IntervalJoinBoltConfig c = ShowsClicks(JoinType::kInner);
  c.right.timestamp_field.clear();
  try {
    IntervalJoinBolt bolt(c);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "\"clicks\" has no event time: set timestamp_field (in its side's map, or for "
                 "both at the bolt level)");
  }
  c.timestamp_field = "ts";  // the bolt-level field serves both
  EXPECT_NO_THROW(IntervalJoinBolt bolt(c));
  c.right.name = "shows";
  try {
    IntervalJoinBolt bolt(c);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "'shows' is already part of join. Cannot join with it more than once.");
  }
}

TEST(IntervalJoinBoltValidationTest, HeldTuplesMustFitTheMessageTimeout) {
  Harness h;
  h.config().message_timeout_secs = 30;
  EXPECT_EQ(h.StartError(ShowsClicks(JoinType::kLeft, 0, 600'000)),
            "tuples stay in the join up to 600000 ms (bound 600000 + lag_ms 0 + "
            "watermark_interval_ms 0), more than topology.message.timeout.secs value 30000 ms: "
            "they would time out and be replayed while still held; raise "
            "topology.message.timeout.secs or narrow the bounds");
  Harness off;
  off.config().message_timeout_secs = 30;
  off.config().acker_executors = 0;  // nothing tracked: nothing times out
  EXPECT_EQ(off.StartError(ShowsClicks(JoinType::kLeft, 0, 600'000)), "(prepared)");
}

TEST(IntervalJoinBoltValidationTest, ParallelInputsMustBeFieldsGroupedOnTheKey) {
  Harness shuffled(3, topology::GroupingType::kShuffle);
  EXPECT_EQ(shuffled.StartError(ShowsClicks(JoinType::kLeft)),
            "with parallelism 3, input \"shows\" must be fields-grouped on its join key [log_id] "
            "(or global), or matching tuples can reach different tasks; it is SHUFFLE");
  Harness keyed(3, topology::GroupingType::kFields);
  EXPECT_EQ(keyed.StartError(ShowsClicks(JoinType::kLeft)), "(prepared)");
}

TEST(IntervalJoinBoltValidationTest, SelectAndTimestampFieldsAreCheckedAgainstTheInputs) {
  Harness h;
  IntervalJoinBoltConfig c = ShowsClicks(JoinType::kLeft);
  c.select = "shows:log_id, clicks:url";
  EXPECT_EQ(h.StartError(c),
            "select: field \"url\" is not declared by \"clicks\" (shows: log_id, ad, ts; clicks: "
            "log_id, ts)");
  c = ShowsClicks(JoinType::kLeft);
  c.right.timestamp_field = "clicked_at";
  EXPECT_EQ(
      h.StartError(c),
      "timestamp_field \"clicked_at\" is not declared by \"clicks\" (declared: [log_id, ts])");
}

}  // namespace
}  // namespace tempest::bolts

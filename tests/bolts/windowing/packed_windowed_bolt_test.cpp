// A PackedWindowedBolt through AdaptWindowedBolt: its windows hold the tuples packed, in arrival
// order; rows are acked (or failed) by their ack metadata as they leave; an emit is anchored to
// exactly the rows it names, or to the whole window when it names none.
#include "bolts/windowing/packed_windowed_bolt.h"

#include <gtest/gtest.h>

#include <deque>
#include <stdexcept>

#include "../../support/builtin_test_support.h"
#include "bolts/windowing/packed_values.h"

namespace tempest::bolts {
namespace {

using testing::FakeBoltCollector;
using topology::Fields;
using topology::StreamSchema;
using topology::Tuple;
using topology::Value;
using topology::Values;
using Ids = std::vector<int64_t>;

// Records each window's ids (field 0, read packed) and the stream of its first row; emits one
// row anchored to the first row and one unanchored (so anchored to the whole window).
class PackedRecorder final : public PackedWindowedBolt {
 public:
  std::vector<Ids> windows;
  std::vector<std::string> first_streams;
  std::vector<Values> rows;   // every row of every window, unpacked
  std::vector<uint8_t> read;  // what FieldsRead answers
  bool throw_next = false;

  std::vector<uint8_t> FieldsRead(const topology::StreamSchema&) const override { return read; }

  void Prepare(const topology::TopologyContext&, PackedWindowCollector& out) override {
    out_ = &out;
  }
  void Execute(const PackedWindow& w) override {
    Ids ids;
    for (const HeldRow& r : w.Get()) {
      const PackedRow row = w.Row(r);
      const uint8_t* at = packed::FindPath(row.fields, row.field_count, 0, {"id"});
      topology::Value v;
      packed::UnpackValue(at, v);
      ids.push_back(v.AsInt());
      rows.push_back(w.Unpack(r).GetValues());
    }
    windows.push_back(ids);
    first_streams.push_back(w.Unpack(w.Get()[0]).GetSourceComponent());
    if (throw_next) throw std::runtime_error("boom");
    const HeldRow first[] = {w.Get()[0]};
    out_->EmitAnchoredToRows("default", first, Values{ids.front()});
    out_->Emit(Values{static_cast<int64_t>(ids.size())});
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override {
    d.Declare(Fields{"n"});
  }

 private:
  PackedWindowCollector* out_ = nullptr;
};

struct Harness {
  FakeBoltCollector out;
  PackedRecorder* recorder = nullptr;
  std::unique_ptr<topology::Bolt> bolt;
  StreamSchema s1;
  std::deque<Tuple> inputs;
  std::unique_ptr<topology::TopologyContext> context;

  explicit Harness(WindowConfig config, Fields late_fields = {}) {
    auto spec = std::make_shared<topology::TopologySpec>();
    topology::ComponentSpec spout;
    spout.id = "s1";
    spout.kind = topology::ComponentKind::kSpout;
    topology::ComponentSpec win;
    win.id = "win";
    win.inputs.push_back({topology::GlobalStreamId{"s1", "default"}, {}});
    spec->components = {spout, win};
    auto layout = std::make_shared<const topology::TaskLayout>(*spec);
    context = std::make_unique<topology::TopologyContext>(spec, layout, 2);
    s1.component = "s1";
    s1.fields = std::make_shared<const Fields>(Fields{"id", "ts"});
    auto r = std::make_unique<PackedRecorder>();
    recorder = r.get();
    bolt = AdaptWindowedBolt(std::move(r), std::move(config), std::move(late_fields), {},
                             [] { return int64_t{0}; });
    bolt->Prepare(*context, out);
  }
  // Input `id`, tracked as root id + 1.
  void Send(int64_t id, int64_t ts = 0) {
    Tuple& t = inputs.emplace_back(&s1, 1, Values{id, ts});
    tempest::topology::TupleAccess::MutableAck(t).anchors.push_back(
        {static_cast<uint64_t>(id + 1), 7});
    topology::ExecuteOwned(*bolt, t);
  }
  // The inputs as one batch through the bolt's batch path, tracked as Send tracks them.
  void SendBatch(const std::vector<Values>& rows) {
    topology::RowBatch batch;
    for (const Values& r : rows) {
      const topology::AckMeta::Anchor anchor{static_cast<uint64_t>(r[0].AsInt() + 1), 7};
      batch.Append(&s1, r, {&anchor, 1});
    }
    testing::FakeBatchCollector collector(*bolt, out);
    dynamic_cast<topology::BatchBolt&>(*bolt).ExecuteBatch(batch, collector);
  }
  static Ids Roots(const std::vector<Tuple>& tuples) {
    Ids ids;
    for (const Tuple& t : tuples)
      ids.push_back(static_cast<int64_t>(tempest::topology::TupleAccess::Ack(t).anchors[0].root) -
                    1);
    return ids;
  }
};

TEST(PackedWindowedBoltTest, WindowsHoldTheRowsInArrivalOrderAndAckThemAsTheyLeave) {
  Harness h(WindowConfig::Sliding(WindowSpan::Count(3), WindowSpan::Count(2)));
  for (int64_t id = 1; id <= 6; ++id) h.Send(id);
  EXPECT_EQ(h.recorder->windows, (std::vector<Ids>{{1, 2}, {2, 3, 4}, {4, 5, 6}}));
  EXPECT_EQ(h.recorder->first_streams[0], "s1");
  EXPECT_EQ(Harness::Roots(h.out.acked), (Ids{1, 2, 3}));
  // Each row's ack carries its own edge: the collector here does not XOR any in.
  for (const Tuple& t : h.out.acked)
    EXPECT_EQ(tempest::topology::TupleAccess::Ack(t).anchors[0].edge ^
                  tempest::topology::TupleAccess::Ack(t).ack_val,
              7u);
  h.bolt->OnEndOfStream();
  EXPECT_EQ(Harness::Roots(h.out.acked), (Ids{1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(h.out.failed.empty());
}

TEST(PackedWindowedBoltTest, EmitsAreAnchoredToTheRowsTheyNameOrToTheWholeWindow) {
  Harness h(WindowConfig::Tumbling(WindowSpan::Count(3)));
  for (int64_t id = 1; id <= 3; ++id) h.Send(id);
  ASSERT_EQ(h.out.emitted.size(), 2u);
  EXPECT_EQ(h.out.emitted[0].anchor_roots, (std::vector<uint64_t>{2}));
  EXPECT_EQ(h.out.emitted[1].anchor_roots, (std::vector<uint64_t>{2, 3, 4}));
}

TEST(PackedWindowedBoltTest, AThrowingWindowFailsItsRowsWhenTheyLeave) {
  Harness h(WindowConfig::Tumbling(WindowSpan::Count(2)));
  h.Send(1);
  h.Send(2);  // acked as they leave
  h.recorder->throw_next = true;
  h.Send(3);
  h.Send(4);  // throws: 3 and 4 fail
  h.recorder->throw_next = false;
  ASSERT_EQ(h.out.errors.size(), 1u);
  EXPECT_NE(h.out.errors[0].find("boom"), std::string::npos);
  h.bolt->OnEndOfStream();
  EXPECT_EQ(Harness::Roots(h.out.acked), (Ids{1, 2}));
  EXPECT_EQ(Harness::Roots(h.out.failed), (Ids{3, 4}));
}

TEST(PackedWindowedBoltTest, AReplayAfterTheFlushIsAWindowOfItsOwn) {
  Harness h(WindowConfig::Tumbling(WindowSpan::Count(10)));
  h.Send(1);
  h.bolt->OnEndOfStream();
  h.Send(9);
  EXPECT_EQ(h.recorder->windows, (std::vector<Ids>{{1}, {9}}));
  EXPECT_EQ(Harness::Roots(h.out.acked), (Ids{1, 9}));
}

// Fields the bolt says it does not read are held as null; the rest, and the ack metadata, as
// they came.
TEST(PackedWindowedBoltTest, TheWindowHoldsOnlyTheFieldsTheBoltReads) {
  Harness h(WindowConfig::Tumbling(WindowSpan::Count(2)));
  h.recorder->read = {1, 0};  // id, not ts
  h.Send(1, 100);
  h.Send(2, 200);
  EXPECT_EQ(h.recorder->rows, (std::vector<Values>{{int64_t{1}, Value()}, {int64_t{2}, Value()}}));
  h.bolt->OnEndOfStream();  // the rows leave the window
  EXPECT_EQ(Harness::Roots(h.out.acked), (Ids{1, 2}));
  ASSERT_EQ(h.out.emitted.size(), 2u);
  EXPECT_EQ(h.out.emitted[1].anchor_roots, (std::vector<uint64_t>{2, 3}));

  // All read, or a mask of the wrong width: everything is held.
  for (const std::vector<uint8_t>& read : {std::vector<uint8_t>{1, 1}, std::vector<uint8_t>{0}}) {
    Harness all(WindowConfig::Tumbling(WindowSpan::Count(1)));
    all.recorder->read = read;
    all.Send(3, 300);
    EXPECT_EQ(all.recorder->rows, (std::vector<Values>{{int64_t{3}, int64_t{300}}}));
  }
}

// Event time through the batch path: the same windows, emits, acks (with their ack values), late
// rows on the late stream and reports as tuple by tuple, for rows of every kind (a long string,
// a map, a row whose timestamp is not an integer).
TEST(PackedWindowedBoltTest, BatchesWindowAsTuplesDo) {
  WindowConfig c = WindowConfig::Tumbling(WindowSpan::DurationMs(10));
  c.timestamp_field = "ts";
  c.lag_ms = 2;
  c.watermark_interval_ms = 0;  // the watermark moves after every tuple
  c.late_stream = "late";
  const Value map = topology::Map{{Value("k"), Value("a string longer than a cell")}};
  const std::vector<Values> rows = {{1, 603}, {2, 605}, {3, map}, {4, 615}, {5, 609},
                                    {6, 611}, {7, 625}, {8, 626}, {9, "x"}, {10, 640}};
  Harness by_tuple(c, Fields{"id", "ts"});
  for (const Values& r : rows) {
    Tuple& t = by_tuple.inputs.emplace_back(&by_tuple.s1, 1, r);
    tempest::topology::TupleAccess::MutableAck(t).anchors.push_back(
        {static_cast<uint64_t>(r[0].AsInt() + 1), 7});
    topology::ExecuteOwned(*by_tuple.bolt, t);
  }
  by_tuple.bolt->OnEndOfStream();

  Harness by_batch(c, Fields{"id", "ts"});
  by_batch.SendBatch({rows.begin(), rows.begin() + 4});
  by_batch.SendBatch({rows.begin() + 4, rows.end()});
  by_batch.bolt->OnEndOfStream();

  EXPECT_EQ(by_batch.recorder->windows, (std::vector<Ids>{{1, 2}, {4}, {7, 8}, {10}}));
  EXPECT_EQ(by_batch.recorder->windows, by_tuple.recorder->windows);
  EXPECT_EQ(by_batch.recorder->rows, by_tuple.recorder->rows);
  ASSERT_EQ(by_batch.out.emitted.size(), by_tuple.out.emitted.size());
  for (std::size_t i = 0; i < by_tuple.out.emitted.size(); ++i) {
    EXPECT_EQ(by_batch.out.emitted[i].stream, by_tuple.out.emitted[i].stream) << i;
    EXPECT_EQ(by_batch.out.emitted[i].values, by_tuple.out.emitted[i].values) << i;
    EXPECT_EQ(by_batch.out.emitted[i].anchor_roots, by_tuple.out.emitted[i].anchor_roots) << i;
  }
  EXPECT_EQ(Harness::Roots(by_batch.out.acked), Harness::Roots(by_tuple.out.acked));
  EXPECT_EQ(Harness::Roots(by_batch.out.acked), (Ids{3, 5, 6, 1, 2, 9, 4, 7, 8, 10}));
  EXPECT_EQ(by_batch.out.errors, by_tuple.out.errors);
  ASSERT_EQ(by_batch.out.errors.size(), 2u);
  EXPECT_NE(by_batch.out.errors[0].find("has no integer timestamp in field \"ts\""),
            std::string::npos);
  EXPECT_EQ(by_batch.out.dropped, 2u);
  std::vector<Values> late;
  for (const auto& e : by_batch.out.emitted) {
    if (e.stream == "late") late.push_back(e.values);
  }
  EXPECT_EQ(late, (std::vector<Values>{rows[4], rows[5]}));
  EXPECT_EQ(by_batch.out.log, by_tuple.out.log);
}

// The batch path reports the window's rows once per batch that fired a window, as they are after
// the batch.
TEST(PackedWindowedBoltTest, ABatchThatFiresAWindowReportsTheRowsHeldAfterIt) {
  using Gauges = std::vector<std::pair<std::string, uint64_t>>;
  Harness h(WindowConfig::Tumbling(WindowSpan::Count(3)));
  h.SendBatch({{1, 0}, {2, 0}});
  EXPECT_TRUE(h.out.gauges.empty());  // nothing fired
  // {1, 2, 3} fires and stays until the next window evicts it; 4 and 5 wait for that window.
  h.SendBatch({{3, 0}, {4, 0}, {5, 0}});
  EXPECT_EQ(h.recorder->windows, (std::vector<Ids>{{1, 2, 3}}));
  EXPECT_EQ(h.out.gauges, (Gauges{{"window rows", 5}}));
  h.bolt->OnEndOfStream();  // {4, 5} fires, then every row leaves
  EXPECT_EQ(h.recorder->windows, (std::vector<Ids>{{1, 2, 3}, {4, 5}}));
  EXPECT_EQ(h.out.gauges, (Gauges{{"window rows", 0}}));
}

}  // namespace
}  // namespace tempest::bolts

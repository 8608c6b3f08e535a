// FilterBolt: keeps exactly the tuples whose condition is true (false and null drop them),
// forwards them unchanged and anchored, acks every input, and refuses a bad condition.
#include "bolts/filter_bolt.h"

#include <gtest/gtest.h>

#include "../support/builtin_test_support.h"

namespace tempest::bolts {
namespace {

using topology::Fields;
using topology::Tuple;
using topology::Value;
using topology::Values;

TEST(FilterBoltTest, KeepsTrueDropsFalseAndNullAcksAll) {
  const Fields fields{"path", "status"};
  topology::StreamSchema schema;
  schema.fields = std::make_shared<const Fields>(fields);
  FilterBolt bolt({"status >= 500 OR input:path = '/login'", "errors"}, fields);
  testing::FakeBoltCollector out;
  bolt.Prepare(testing::BoltContext(), out);
  const std::vector<Values> rows = {
      {"/a", 200}, {"/b", 503}, {"/login", 200}, {Value(), Value()}, {"/c", Value()}};
  for (const Values& r : rows) bolt.Execute(Tuple(&schema, 1, r));
  ASSERT_EQ(out.emitted.size(), 2u);
  EXPECT_EQ(out.emitted[0].stream, "errors");
  EXPECT_EQ(out.emitted[0].values, (Values{"/b", 503}));
  EXPECT_EQ(out.emitted[1].values, (Values{"/login", 200}));
  EXPECT_EQ(out.emitted[0].anchors.size(), 1u);
  EXPECT_EQ(out.acked.size(), rows.size());
}

// The batch path (rows read as cells) keeps and drops exactly what Execute does, forwards the
// kept rows whole and acks each input once, with the ack value of its forward: short and long
// strings, numbers, nulls and a map read by a nested path.
TEST(FilterBoltTest, BatchesKeepWhatTuplesKeep) {
  const Fields fields{"path", "status", "meta"};
  topology::StreamSchema schema;
  schema.fields = std::make_shared<const Fields>(fields);
  const std::string long_path = "/a/path/longer/than/a/cell/holds";
  const Value meta = topology::Map{{Value("region"), Value("eu")}};
  const Value other_meta = topology::Map{{Value("region"), Value("us")}};
  const std::vector<Values> rows = {
      {"/a", 200, meta},           {long_path, 503, other_meta},
      {"/login", 200, Value()},    {Value(), Value(), meta},
      {"/c", Value(), meta},       {"/another/long/path/here", 2.5, Value()},
      {"/d", 404, topology::Map{}}};
  const FilterBoltConfig config{
      "status >= 500 OR path = '/a/path/longer/than/a/cell/holds' OR meta.region = 'eu'", "kept"};

  FilterBolt by_tuple(config, fields);
  testing::FakeBoltCollector tuple_out;
  by_tuple.Prepare(testing::BoltContext(), tuple_out);
  for (const Values& r : rows) by_tuple.Execute(Tuple(&schema, 1, r));

  FilterBolt by_batch(config, fields);
  testing::FakeBoltCollector batch_out;
  by_batch.Prepare(testing::BoltContext(), batch_out);
  testing::FakeBatchCollector collector(by_batch, batch_out);
  topology::RowBatch batch;
  const topology::AckMeta::Anchor anchor{7, 9};
  for (const Values& r : rows) batch.Append(&schema, r, {&anchor, 1});
  by_batch.ExecuteBatch(batch, collector);

  ASSERT_EQ(tuple_out.emitted.size(), 4u);
  ASSERT_EQ(batch_out.emitted.size(), tuple_out.emitted.size());
  for (std::size_t i = 0; i < tuple_out.emitted.size(); ++i) {
    EXPECT_EQ(batch_out.emitted[i].stream, "kept");
    EXPECT_EQ(batch_out.emitted[i].values, tuple_out.emitted[i].values) << i;
    EXPECT_EQ(batch_out.emitted[i].anchor_roots, std::vector<uint64_t>{7}) << i;
  }
  EXPECT_EQ(batch_out.emitted[1].values, rows[1]);
  ASSERT_EQ(batch_out.acked.size(), rows.size());
  std::vector<uint64_t> ack_values;
  for (const Tuple& t : batch_out.acked) {
    ack_values.push_back(topology::TupleAccess::Ack(t).ack_val);
  }
  // Rows 0, 1, 3 and 4 kept (forwards 1..4); the others acked with nothing anchored.
  EXPECT_EQ(ack_values, (std::vector<uint64_t>{1, 2, 0, 3, 4, 0, 0}));
}

TEST(FilterBoltTest, ABadConditionIsRefusedWithItsPosition) {
  try {
    FilterBolt bolt({"status >= ", "default"}, Fields{"path", "status"});
    FAIL() << "accepted";
  } catch (const ExpressionError& e) {
    EXPECT_STREQ(e.what(),
                 "at character 10 (the end): expected a value: a literal, a field or \"(\"");
  }
  try {
    FilterBolt bolt({"code = 1", "default"}, Fields{"path", "status"});
    FAIL() << "accepted";
  } catch (const ExpressionError& e) {
    EXPECT_STREQ(e.what(),
                 "at character 0: field \"code\" is not declared by any input (input: path, "
                 "status)");
  }
}

}  // namespace
}  // namespace tempest::bolts

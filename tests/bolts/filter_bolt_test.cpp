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

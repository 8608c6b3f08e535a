#include "topology/tuple.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tempest::topology {
namespace {

StreamSchema Schema() {
  return StreamSchema{"clicks", "views", std::make_shared<const Fields>(Fields{"user", "n", "w"}),
                      false};
}

TEST(TupleTest, ReadsValuesByIndexAndByField) {
  const StreamSchema schema = Schema();
  const Tuple t(&schema, 3, {"ann", 12, 0.5});
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.GetString(0), "ann");
  EXPECT_EQ(t.GetInt(1), 12);
  EXPECT_EQ(t.GetDouble(2), 0.5);
  EXPECT_EQ(t.GetStringByField("user"), "ann");
  EXPECT_EQ(t.GetIntByField("n"), 12);
  EXPECT_EQ(t.FieldIndex("w"), 2u);
  EXPECT_TRUE(t.Contains("n"));
  EXPECT_FALSE(t.Contains("x"));
  EXPECT_EQ(t.Select(Fields{"w", "user"}), (Values{0.5, "ann"}));
  EXPECT_THROW(t.GetValueByField("x"), std::invalid_argument);
  EXPECT_THROW(t.GetValue(3), std::out_of_range);
}

TEST(TupleTest, KnowsWhereItCameFrom) {
  const StreamSchema schema = Schema();
  const Tuple t(&schema, 3, {"ann", 12, 0.5});
  EXPECT_EQ(t.GetSourceComponent(), "clicks");
  EXPECT_EQ(t.GetSourceStreamId(), "views");
  EXPECT_EQ(t.GetSourceTask(), 3);
  EXPECT_EQ(t.GetSourceGlobalStreamId(), (GlobalStreamId{"clicks", "views"}));
  EXPECT_EQ(t.ToString(), "clicks:views[3] [\"ann\",12,0.5]");
}

TEST(TupleTest, IsAMovableValueTypeWithAckRoom) {
  const StreamSchema schema = Schema();
  Tuple a(&schema, 1, {"x", 1, 1.0});
  tempest::topology::TupleAccess::MutableAck(a).anchors.push_back({11, 22});
  Tuple b = std::move(a);
  EXPECT_EQ(b.GetString(0), "x");
  ASSERT_EQ(tempest::topology::TupleAccess::Ack(b).anchors.size(), 1u);
  EXPECT_EQ(tempest::topology::TupleAccess::Ack(b).anchors[0].edge, 22u);
  Tuple c = b;  // copies are independent
  tempest::topology::TupleAccess::MutableValues(c)[0] = "y";
  EXPECT_EQ(b.GetString(0), "x");
}

}  // namespace
}  // namespace tempest::topology

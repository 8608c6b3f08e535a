#include "topology/value.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

namespace tempest::topology {
namespace {

TEST(ValueTest, IntegersOfEveryWidthAreNormalisedToInt64) {
  const Value a = int8_t{7};
  const Value b = uint16_t{7};
  const Value c = 7;
  const Value d = 7LL;
  const Value e = uint64_t{7};
  for (const Value* v : {&a, &b, &c, &d, &e}) {
    EXPECT_EQ(v->type(), ValueType::kInt);
    EXPECT_EQ(v->AsInt(), 7);
    EXPECT_EQ(*v, a);
  }
}

TEST(ValueTest, EachTypeRoundTripsThroughItsAccessor) {
  EXPECT_TRUE(Value().IsNull());
  EXPECT_TRUE(Value(nullptr).IsNull());
  EXPECT_EQ(Value(true).AsBool(), true);
  EXPECT_EQ(Value(2.5).AsDouble(), 2.5);
  EXPECT_EQ(Value("abc").AsString(), "abc");
  EXPECT_EQ(Value(std::string_view("sv")).AsString(), "sv");
  EXPECT_EQ(Value(Bytes{"\x01\x02"}).AsBytes().data, "\x01\x02");
  const Value list = List{1, "two", 3.0};
  ASSERT_EQ(list.AsList().size(), 3u);
  EXPECT_EQ(list.AsList()[1].AsString(), "two");
  const Value map = Map{{"k", 1}, {"n", Value()}};
  EXPECT_EQ(map.AsMap().size(), 2u);
  ASSERT_NE(map.Find("k"), nullptr);
  EXPECT_EQ(map.Find("k")->AsInt(), 1);
  EXPECT_EQ(map.Find("missing"), nullptr);
  EXPECT_EQ(Value(3).Find("k"), nullptr);
}

TEST(ValueTest, StringsAndBytesAreDistinct) {
  EXPECT_NE(Value("ab"), Value(Bytes{"ab"}));
  EXPECT_EQ(Value(Bytes{"ab"}).type(), ValueType::kBytes);
}

TEST(ValueTest, IntWidensToDoubleButNothingElseConverts) {
  EXPECT_EQ(Value(3).AsDouble(), 3.0);
  EXPECT_NE(Value(3), Value(3.0));  // different types are different keys
  try {
    Value("7").AsInt();
    FAIL() << "AsInt on a string must throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "value \"7\" is a string, not a int");
  }
  EXPECT_THROW(Value().AsString(), std::invalid_argument);
  EXPECT_THROW(Value(1).AsList(), std::invalid_argument);
}

TEST(ValueTest, ListsAndMapsCompareByContent) {
  EXPECT_EQ(Value(List{1, 2}), Value(List{1, 2}));
  EXPECT_NE(Value(List{1, 2}), Value(List{2, 1}));
  EXPECT_EQ(Value(Map{{"a", List{1}}}), Value(Map{{"a", List{1}}}));
  EXPECT_NE(Value(Map{{"a", 1}}), Value(Map{{"a", 2}}));
}

TEST(ValueTest, CopiesShareListPayloadAndStayEqual) {
  const Value a = List{"x", "y"};
  const Value b = a;
  EXPECT_EQ(&a.AsList(), &b.AsList());
  EXPECT_EQ(a, b);
}

TEST(ValueTest, ToStringIsCompactJson) {
  EXPECT_EQ(Value(Map{{"a", List{1, 2.5, "q\"", true, Value()}}}).ToString(),
            "{\"a\":[1,2.5,\"q\\\"\",true,null]}");
  EXPECT_EQ(ToString(Values{1, "b"}), "[1,\"b\"]");
}

TEST(ValueTest, ValuesKeepFourInlineWithoutHeap) {
  Values v{1, 2, 3, 4};
  const Value* inline_begin = v.data();
  Values moved = std::move(v);
  EXPECT_EQ(moved.size(), 4u);
  EXPECT_EQ(moved[3].AsInt(), 4);
  EXPECT_NE(moved.data(), inline_begin);  // inline storage is per object, not stolen
}

}  // namespace
}  // namespace tempest::topology

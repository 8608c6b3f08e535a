#include "topology/fields.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace tempest::topology {
namespace {

TEST(FieldsTest, MapsNamesToIndices) {
  const Fields f{"id", "word", "count"};
  EXPECT_EQ(f.size(), 3u);
  EXPECT_EQ(f.Index("word"), 1u);
  EXPECT_EQ(f.Get(2), "count");
  EXPECT_TRUE(f.Contains("id"));
  EXPECT_FALSE(f.Find("nope").has_value());
  EXPECT_EQ(f.ToString(), "[id, word, count]");
}

TEST(FieldsTest, UnknownNameErrorListsTheFields) {
  const Fields f{"a", "b"};
  try {
    f.Index("c");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "field 'c' does not exist in [a, b]");
  }
}

TEST(FieldsTest, DuplicateNamesAreRejected) {
  try {
    Fields f{"a", "b", "a"};
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "duplicate field 'a' in fields [a, b, a]");
  }
}

TEST(FieldsTest, EmitStreamNameIsTheDefaultLiteralForTheDefaultStreamElseTheName) {
  const std::string configured = "default";
  EXPECT_EQ(EmitStreamName(configured).data(), kDefaultStream);
  EXPECT_EQ(EmitStreamName(configured), "default");
  const std::string other = "joined";
  EXPECT_EQ(EmitStreamName(other).data(), other.data());
  const std::string longer = "defaults";
  EXPECT_EQ(EmitStreamName(longer).data(), longer.data());
}

}  // namespace
}  // namespace tempest::topology

#include "topology/value_hash.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <array>
#include <cstring>

namespace tempest::topology {
namespace {

// The algorithm of docs/hashing.md, written out independently with libxxhash.
uint64_t Tagged(uint64_t seed, int tag) {
  return seed ^ (static_cast<uint64_t>(tag + 1) * 0x9E3779B97F4A7C15ULL);
}
uint64_t ReferenceString(const std::string& s, uint64_t seed) {
  return XXH64(s.data(), s.size(), Tagged(seed, 4));
}
uint64_t ReferenceInt(int64_t i, uint64_t seed) {
  unsigned char le[8];
  for (int k = 0; k < 8; ++k)
    le[k] = static_cast<unsigned char>(static_cast<uint64_t>(i) >> (8 * k));
  return XXH64(le, 8, Tagged(seed, 2));
}

TEST(ValueHashTest, MatchesTheDocumentedAlgorithm) {
  EXPECT_EQ(StableHash(Value("apple")), ReferenceString("apple", 0));
  EXPECT_EQ(StableHash(Value(42)), ReferenceInt(42, 0));
  EXPECT_EQ(StableHash(Value(-1)), ReferenceInt(-1, 0));
  const Values v{"user-7", 42};
  const std::array<std::size_t, 2> both{0, 1};
  EXPECT_EQ(StableHash(v, both), ReferenceInt(42, ReferenceString("user-7", 0)));
}

// Pinned outputs: if one of these changes, fields grouping would send keys to other tasks than
// earlier releases and other processes do. Never update them; fix the hash instead.
TEST(ValueHashTest, IsPinnedAcrossReleases) {
  EXPECT_EQ(StableHash(Value("apple")), 0xf2ac2b682b93208fULL);
  EXPECT_EQ(StableHash(Value(42)), 0xc974756b01d076a6ULL);
  EXPECT_EQ(StableHash(Value()), 0xc4349fc93c010000ULL);
}

TEST(ValueHashTest, EqualValuesHashEqually) {
  EXPECT_EQ(StableHash(Value(int8_t{5})), StableHash(Value(uint64_t{5})));
  EXPECT_EQ(StableHash(Value(0.0)), StableHash(Value(-0.0)));
  EXPECT_EQ(StableHash(Value(List{1, "a"})), StableHash(Value(List{1, "a"})));
}

TEST(ValueHashTest, TypeIsPartOfTheHash) {
  EXPECT_NE(StableHash(Value(1)), StableHash(Value(1.0)));
  EXPECT_NE(StableHash(Value("ab")), StableHash(Value(Bytes{"ab"})));
  EXPECT_NE(StableHash(Value(true)), StableHash(Value(1)));
}

TEST(ValueHashTest, OrderOfKeyFieldsMatters) {
  const Values v{"a", "b"};
  const std::array<std::size_t, 2> ab{0, 1};
  const std::array<std::size_t, 2> ba{1, 0};
  EXPECT_NE(StableHash(v, ab), StableHash(v, ba));
}

}  // namespace
}  // namespace tempest::topology

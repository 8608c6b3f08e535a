#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "bolts/join/packed_key_codec.h"

namespace tempest::bolts {
namespace {

using topology::Value;

KeyRef RefsTo(const std::vector<Value>& parts) {
  KeyRef key;
  for (const Value& v : parts) key.push_back(&v);
  return key;
}

TEST(PackedKeyTest, IsSixteenBytes) { EXPECT_EQ(sizeof(PackedKey), 16u); }

TEST(PackedKeyTest, ShortKeyIsInlineAndEqualsOnlyItself) {
  const std::vector<Value> key{Value(int64_t{42}), Value(std::string("ab"))};
  PackedKey stored;
  PackedKeyCodec::Assign(stored, RefsTo(key));
  EXPECT_LE(stored.size(), 15u);
  EXPECT_GE(stored.data(), reinterpret_cast<const uint8_t*>(&stored));
  EXPECT_LT(stored.data(), reinterpret_cast<const uint8_t*>(&stored + 1));
  EXPECT_TRUE(PackedKeyCodec::Equals(stored, RefsTo(key)));

  const std::vector<Value> other{Value(int64_t{42}), Value(std::string("ac"))};
  const std::vector<Value> prefix{Value(int64_t{42})};
  EXPECT_FALSE(PackedKeyCodec::Equals(stored, RefsTo(other)));
  EXPECT_FALSE(PackedKeyCodec::Equals(stored, RefsTo(prefix)));
}

TEST(PackedKeyTest, LongKeyGoesToTheHeapAndSurvivesMoves) {
  const std::vector<Value> key{Value(std::string(300, 'k')), Value(int64_t{-7})};
  PackedKey stored;
  PackedKeyCodec::Assign(stored, RefsTo(key));
  EXPECT_GT(stored.size(), 300u);
  EXPECT_TRUE(PackedKeyCodec::Equals(stored, RefsTo(key)));

  std::vector<PackedKey> keys;
  keys.push_back(std::move(stored));
  EXPECT_EQ(stored.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
  for (int i = 0; i < 100; ++i) keys.emplace_back();  // reallocations move it
  EXPECT_TRUE(PackedKeyCodec::Equals(keys.front(), RefsTo(key)));

  const std::vector<Value> other{Value(std::string(300, 'k')), Value(int64_t{7})};
  EXPECT_FALSE(PackedKeyCodec::Equals(keys.front(), RefsTo(other)));
}

TEST(PackedKeyTest, ReassignAndReleaseLeaveTheNewKeyOrNothing) {
  const std::vector<Value> long_key{Value(std::string(40, 'x'))};
  const std::vector<Value> short_key{Value(int64_t{1})};
  PackedKey stored;
  PackedKeyCodec::Assign(stored, RefsTo(long_key));
  PackedKeyCodec::Assign(stored, RefsTo(short_key));  // frees the long one (ASan checks)
  EXPECT_TRUE(PackedKeyCodec::Equals(stored, RefsTo(short_key)));
  EXPECT_FALSE(PackedKeyCodec::Equals(stored, RefsTo(long_key)));

  PackedKeyCodec::Assign(stored, RefsTo(long_key));
  PackedKeyCodec::Release(stored);
  EXPECT_EQ(stored.size(), 0u);
  EXPECT_TRUE(PackedKeyCodec::Equals(stored, KeyRef{}));
}

// An integer read from a row's cell (IntKey) is the same key as a KeyRef to that integer:
// the same hash, the same stored bytes, equal either way; and no other key.
TEST(PackedKeyTest, AnIntKeyIsTheKeyOfItsIntegerAsAValue) {
  for (const int64_t i :
       {int64_t{0}, int64_t{-1}, int64_t{63}, int64_t{64}, int64_t{1} << 40,
        std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
    const std::vector<Value> as_value{Value(i)};
    EXPECT_EQ(HashKey(IntKey{i}), HashKey(RefsTo(as_value))) << i;
    PackedKey from_int;
    PackedKey from_ref;
    PackedKeyCodec::Assign(from_int, IntKey{i});
    PackedKeyCodec::Assign(from_ref, RefsTo(as_value));
    ASSERT_EQ(from_int.size(), from_ref.size()) << i;
    EXPECT_EQ(std::memcmp(from_int.data(), from_ref.data(), from_int.size()), 0) << i;
    EXPECT_TRUE(PackedKeyCodec::Equals(from_ref, IntKey{i})) << i;
    EXPECT_TRUE(PackedKeyCodec::Equals(from_int, RefsTo(as_value))) << i;
    EXPECT_FALSE(PackedKeyCodec::Equals(from_ref, IntKey{i ^ 1})) << i;
  }
  const std::vector<Value> text{Value(std::string("7"))};
  const std::vector<Value> two_parts{Value(int64_t{7}), Value(int64_t{7})};
  const std::vector<Value> real{Value(7.0)};
  for (const auto* other : {&text, &two_parts, &real}) {
    PackedKey stored;
    PackedKeyCodec::Assign(stored, RefsTo(*other));
    EXPECT_FALSE(PackedKeyCodec::Equals(stored, IntKey{7}));
  }
  PackedKey empty;
  EXPECT_FALSE(PackedKeyCodec::Equals(empty, IntKey{0}));
}

}  // namespace
}  // namespace tempest::bolts

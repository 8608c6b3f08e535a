#include "bolts/join/flat_key_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "bolts/join/packed_key_codec.h"

namespace tempest::bolts {
namespace {

using topology::Value;

struct Slot {
  uint32_t hash = 0;
  bool in_table = false;
  int held = 0;
  bool empty() const noexcept { return held == 0; }
};

using Table = FlatKeyTable<Slot, PackedKeyCodec>;

// Keys are integers; their hashes are chosen by the test, so that chains collide and wrap.
class Keys {
 public:
  uint32_t Insert(int64_t key, uint64_t hash) {
    const Value v(key);
    const uint32_t k = table.FindOrInsert(KeyRef{&v}, hash);
    table[k].held = 1;
    return k;
  }
  uint32_t Find(int64_t key, uint64_t hash) const {
    const Value v(key);
    return table.Find(KeyRef{&v}, hash);
  }
  void Forget(uint32_t k) {
    table[k].held = 0;
    table.Forget(k);
  }

  Table table;
};

TEST(FlatKeyTableTest, ForgettingAKeyInsideAChainKeepsTheRestFindable) {
  Keys keys;
  // Places 14, 15, then wrapping to 0, 1: one chain from 14; key 5 sits at its own home, 1.
  const uint32_t a = keys.Insert(1, 14);
  const uint32_t b = keys.Insert(2, 14);
  const uint32_t c = keys.Insert(3, 15);
  const uint32_t d = keys.Insert(4, 14);
  const uint32_t e = keys.Insert(5, 1);
  keys.Forget(b);
  EXPECT_EQ(keys.Find(2, 14), Table::kNoKey);
  EXPECT_EQ(keys.Find(1, 14), a);
  EXPECT_EQ(keys.Find(3, 15), c);
  EXPECT_EQ(keys.Find(4, 14), d);
  EXPECT_EQ(keys.Find(5, 1), e);
  keys.Forget(a);
  EXPECT_EQ(keys.Find(3, 15), c);
  EXPECT_EQ(keys.Find(4, 14), d);
  EXPECT_EQ(keys.Find(5, 1), e);
  EXPECT_EQ(keys.table.live(), 3u);
  // A new key takes a forgotten key's slot.
  const uint32_t f = keys.Insert(6, 14);
  EXPECT_TRUE(f == a || f == b);
  EXPECT_EQ(keys.Find(6, 14), f);
  EXPECT_EQ(keys.table.slots().size(), 5u);
}

TEST(FlatKeyTableTest, KeysComingAndGoingInCollidingChainsAreAlwaysFoundAsAMapFindsThem) {
  Keys keys;
  std::map<int64_t, uint32_t> held;  // key -> index
  std::mt19937 rng(7);
  auto hash_of = [](int64_t key) { return static_cast<uint64_t>(key % 13) * 5; };  // collides
  for (int step = 0; step < 20000; ++step) {
    const int64_t key = static_cast<int64_t>(rng() % 300);
    if (auto it = held.find(key); it != held.end()) {
      keys.Forget(it->second);
      held.erase(it);
    } else {
      held[key] = keys.Insert(key, hash_of(key));
    }
    if (step % 97 != 0) continue;
    for (int64_t k = 0; k < 300; ++k) {
      const auto it = held.find(k);
      ASSERT_EQ(keys.Find(k, hash_of(k)), it == held.end() ? Table::kNoKey : it->second)
          << "key " << k << " at step " << step;
    }
  }
  EXPECT_EQ(keys.table.live(), held.size());
}

}  // namespace
}  // namespace tempest::bolts

#include "topology/pod_vector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tempest::topology {
namespace {

struct Pair {
  uint64_t a;
  uint32_t b;
};

std::vector<uint64_t> Contents(const PodVector<Pair>& v) {
  std::vector<uint64_t> out;
  for (const Pair& p : v) out.push_back(p.a * 10 + p.b);
  return out;
}

// Growing (many times, from empty) keeps every element already written, in order.
TEST(PodVectorTest, GrowingKeepsTheElementsInOrder) {
  PodVector<Pair> v;
  std::vector<uint64_t> expected;
  for (uint32_t i = 0; i < 1000; ++i) {
    if (i % 3 == 0) {
      v.push_back({i, i % 10});
    } else {
      Pair& p = v.emplace_back();
      EXPECT_EQ(p.a, 0u);  // value-initialised, as std::vector's emplace_back()
      EXPECT_EQ(p.b, 0u);
      p.a = i;
      p.b = i % 10;
    }
    expected.push_back(uint64_t{i} * 10 + i % 10);
  }
  EXPECT_EQ(v.size(), 1000u);
  EXPECT_GE(v.capacity(), 1000u);
  EXPECT_EQ(Contents(v), expected);
  EXPECT_EQ(v.back().a, 999u);
}

// push_back of an element of the same array stays right when that push grows the array.
TEST(PodVectorTest, PushingItsOwnElementWhileGrowingCopiesItFirst) {
  PodVector<Pair> v;
  v.push_back({7, 1});
  while (v.size() < v.capacity()) v.push_back({0, 0});
  v.push_back(v[0]);  // this push reallocates
  EXPECT_EQ(v.back().a, 7u);
  EXPECT_EQ(v.back().b, 1u);
}

TEST(PodVectorTest, ExtendHandsOutSlotsAfterTheLastElement) {
  PodVector<char> v;
  v.Append("ab", "ab" + 2);
  char* p = v.Extend(3);
  p[0] = 'c';
  p[1] = 'd';
  p[2] = 'e';
  EXPECT_EQ(std::string(v.begin(), v.end()), "abcde");
  v.Truncate(2);
  EXPECT_EQ(std::string(v.begin(), v.end()), "ab");
  v.clear();
  EXPECT_TRUE(v.empty());
  EXPECT_GE(v.capacity(), 5u);  // kept for the next batch
}

TEST(PodVectorTest, CopiesAreIndependentAndMovesTakeTheBuffer) {
  PodVector<Pair> v;
  for (uint32_t i = 0; i < 100; ++i) v.push_back({i, 1});
  PodVector<Pair> copy = v;
  copy[0].a = 42;
  EXPECT_EQ(v[0].a, 0u);
  EXPECT_EQ(copy.size(), 100u);

  const Pair* buffer = v.data();
  PodVector<Pair> moved = std::move(v);
  EXPECT_EQ(moved.data(), buffer);
  EXPECT_EQ(moved.size(), 100u);

  PodVector<Pair> assigned;
  assigned.push_back({5, 5});
  assigned = copy;
  EXPECT_EQ(Contents(assigned), Contents(copy));
  EXPECT_EQ(assigned[0].a, 42u);
}

}  // namespace
}  // namespace tempest::topology

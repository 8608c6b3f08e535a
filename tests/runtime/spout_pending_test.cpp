// SpoutPending: Storm's two-generation timeout rule (rotation driven by hand), roots that name
// their slot, and the ack values of the trees a spout tracks itself.
#include "runtime/acking/spout_pending.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tempest::runtime {
namespace {

using topology::Value;

const SpoutPending::TimePoint kT0{};

// A tree whose tuples are all out (Reserve, then Commit, as the spout's emit does).
uint64_t Add(SpoutPending& p, uint64_t high_bits, Value message_id, SpoutPending::TimePoint t) {
  const uint64_t root = p.Reserve(high_bits);
  if (root != 0) p.Commit(root, std::move(message_id), t);
  return root;
}

std::optional<SpoutPending::Entry> Take(SpoutPending& p, uint64_t root) {
  SpoutPending::Entry e;
  if (!p.TakeInto(root, e)) return std::nullopt;
  return e;
}

TEST(SpoutPendingTest, ATupleTimesOutAtTheSecondRotationAfterItsEmit) {
  SpoutPending p;
  Add(p, 0x11, Value(int64_t{10}), kT0);
  std::vector<SpoutPending::Entry> expired;
  p.Rotate(expired);  // T after the emit at the latest: not yet
  EXPECT_TRUE(expired.empty());
  EXPECT_EQ(p.size(), 1u);
  Add(p, 0x22, Value(int64_t{20}), kT0);
  p.Rotate(expired);  // between T and 2T after the emit of the first
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].TakeId(), Value(int64_t{10}));
  EXPECT_EQ(p.size(), 1u);
  expired.clear();
  p.Rotate(expired);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].TakeId(), Value(int64_t{20}));
  EXPECT_TRUE(p.empty());
}

TEST(SpoutPendingTest, IdsOfEveryKindComeBackAsTheyWentInWhateverTheSlotHeldBefore) {
  SpoutPending p;
  // One slot reused (last freed first) by ids of alternating kinds.
  const std::vector<Value> ids{Value("a"),        Value(int64_t{-5}),           Value(2.5),
                               Value(int64_t{7}), Value(std::string(100, 'x')), Value(true)};
  for (const Value& id : ids) {
    const uint64_t root = Add(p, 0x5, id, kT0);
    auto e = Take(p, root);
    ASSERT_TRUE(e.has_value());
    EXPECT_FALSE(Take(p, root).has_value());
    EXPECT_EQ(e->TakeId(), id);
  }
  EXPECT_TRUE(p.empty());
}

TEST(SpoutPendingTest, TakeRemovesOnceAndLateOrForeignRepliesAreIgnored) {
  SpoutPending p;
  const uint64_t root = Add(p, 0xABC, Value("a"), kT0);
  EXPECT_EQ(root >> SpoutPending::kSlotBits, 0xABCu);
  std::vector<SpoutPending::Entry> expired;
  p.Rotate(expired);  // now in the older generation: still found
  auto e = Take(p, root);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->TakeId(), Value("a"));
  EXPECT_FALSE(Take(p, root).has_value());  // acked twice, or acked after it timed out
  // The slot is reused by the next tree: a late reply for the old root does not match it.
  const uint64_t next = Add(p, 0xDEF, Value("b"), kT0);
  EXPECT_NE(next, root);
  EXPECT_FALSE(Take(p, root).has_value());
  EXPECT_FALSE(p.Touch(root));
  EXPECT_FALSE(Take(p, 0).has_value());
  EXPECT_FALSE(Take(p, uint64_t{1} << 40).has_value());  // a slot it never had
  EXPECT_EQ(p.size(), 1u);
  EXPECT_TRUE(Take(p, next).has_value());
  EXPECT_TRUE(p.empty());
}

TEST(SpoutPendingTest, ReleaseFreesAReservedRootAndRootsAreDistinct) {
  SpoutPending p;
  std::set<uint64_t> roots;
  for (int i = 0; i < 1000; ++i) roots.insert(Add(p, 7, Value(int64_t{i}), kT0));
  EXPECT_EQ(roots.size(), 1000u);  // same high bits, different slots
  const uint64_t r = p.Reserve(9);
  EXPECT_EQ(p.size(), 1001u);
  p.Release(r);
  EXPECT_EQ(p.size(), 1000u);
  EXPECT_FALSE(Take(p, r).has_value());
  for (uint64_t root : roots) EXPECT_TRUE(Take(p, root).has_value());
  EXPECT_TRUE(p.empty());
  EXPECT_FALSE(p.full());
}

// A spout that waits for room while it sends a tree's tuples keeps rotating: the reserved root
// must survive that (its Commit would find nothing), and its timeout starts at the Commit.
TEST(SpoutPendingTest, AReservedRootNeverExpiresAndItsTimeoutStartsAtCommit) {
  SpoutPending p;
  const uint64_t root = p.Reserve(0x33);
  std::vector<SpoutPending::Entry> expired;
  for (int i = 0; i < 5; ++i) p.Rotate(expired);
  EXPECT_TRUE(expired.empty());
  p.Commit(root, Value(int64_t{7}), kT0);
  p.Rotate(expired);
  EXPECT_TRUE(expired.empty());
  p.Rotate(expired);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].TakeId(), Value(int64_t{7}));
  EXPECT_TRUE(p.empty());
}

TEST(SpoutPendingTest, TouchRestartsTheTimeout) {
  SpoutPending p;
  const uint64_t root = Add(p, 1, Value(int64_t{1}), kT0);
  std::vector<SpoutPending::Entry> expired;
  for (int i = 0; i < 10; ++i) {
    p.Rotate(expired);
    EXPECT_TRUE(p.Touch(root));  // reset_timeout between every two rotations keeps it alive
  }
  EXPECT_TRUE(expired.empty());
  p.Rotate(expired);
  p.Rotate(expired);
  EXPECT_EQ(expired.size(), 1u);
}

using Decision = SpoutPending::Decision;

TEST(SpoutPendingTest, ATreeCompletesWhenItsEdgesAndAcksXorToZero) {
  SpoutPending p;
  const uint64_t root = p.Reserve(5);
  // Edges 0b0011 and 0b0101 sent; the first bolt acks 0b0011 ^ 0b1000 (it sent edge 0b1000).
  EXPECT_EQ(p.Commit(root, Value(int64_t{1}), kT0, 0b0011 ^ 0b0101), Decision::kPending);
  EXPECT_EQ(p.Ack(root, 0b0011 ^ 0b1000), Decision::kPending);
  EXPECT_EQ(p.Ack(root, 0b0101), Decision::kPending);
  EXPECT_EQ(p.Ack(root, 0b1000), Decision::kCompleted);
  EXPECT_EQ(Take(p, root)->TakeId(), Value(int64_t{1}));
  EXPECT_EQ(p.Ack(root, 0b1000), Decision::kUnknown);  // late: its tree is decided
  EXPECT_TRUE(p.empty());
}

// While the spout's emit waits for room downstream, acks of the tuples already sent come in:
// the tree is decided at its Commit, never before.
TEST(SpoutPendingTest, AcksAndFailsBeforeTheCommitDecideTheTreeAtTheCommit) {
  SpoutPending p;
  const uint64_t acked = p.Reserve(5);
  EXPECT_EQ(p.Ack(acked, 0x77), Decision::kPending);
  EXPECT_EQ(p.Commit(acked, Value("a"), kT0, 0x77), Decision::kCompleted);
  const uint64_t failed = p.Reserve(6);
  EXPECT_EQ(p.Fail(failed), Decision::kPending);
  EXPECT_EQ(p.Commit(failed, Value("b"), kT0, 0x99), Decision::kFailed);
  const uint64_t half = p.Reserve(7);
  EXPECT_EQ(p.Ack(half, 0x10), Decision::kPending);
  EXPECT_EQ(p.Commit(half, Value("c"), kT0, 0x30), Decision::kPending);
  EXPECT_EQ(p.Ack(half, 0x20), Decision::kCompleted);
}

TEST(SpoutPendingTest, AReusedSlotStartsFromAZeroValueAndIgnoresTheOldRoot) {
  SpoutPending p;
  const uint64_t first = p.Reserve(5);
  EXPECT_EQ(p.Ack(first, 0x1), Decision::kPending);
  EXPECT_EQ(p.Fail(first), Decision::kPending);
  p.Release(first);
  const uint64_t second = p.Reserve(9);
  ASSERT_EQ(RootSlot(second), RootSlot(first));
  EXPECT_EQ(p.Ack(first, 0x2), Decision::kUnknown);
  EXPECT_EQ(p.Commit(second, Value("x"), kT0, 0x4), Decision::kPending);
  EXPECT_EQ(p.Ack(second, 0x4), Decision::kCompleted);
}

// With an acker tracking the tree (edges 0 at the Commit), the entry only waits for a verdict.
TEST(SpoutPendingTest, ATreeAnAckerTracksStaysPendingAtItsCommit) {
  SpoutPending p;
  const uint64_t root = p.Reserve(5);
  EXPECT_EQ(p.Commit(root, Value("a"), kT0), Decision::kPending);
  EXPECT_EQ(p.size(), 1u);
}

}  // namespace
}  // namespace tempest::runtime

// The acker's XOR ledger: Storm's tuple-tree arithmetic, in any arrival order, with timeouts by
// rotation.
#include "runtime/acking/ack_ledger.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

#include "runtime/acking/ack_ids.h"

namespace tempest::runtime {
namespace {

using Outcome = AckLedger::Outcome;

TEST(AckLedgerTest, ATreeCompletesWhenEveryEdgeIsAcked) {
  AckLedger ledger;
  // The spout sends root 7 to two bolts: edges a and b.
  const uint64_t a = 0x1111, b = 0x2222;
  EXPECT_EQ(ledger.Init(7, a ^ b, 3).outcome, Outcome::kPending);
  // The first bolt acks a, having emitted c anchored to it.
  const uint64_t c = 0x4444;
  EXPECT_EQ(ledger.Ack(7, a ^ c).outcome, Outcome::kPending);
  EXPECT_EQ(ledger.Ack(7, b).outcome, Outcome::kPending);
  const AckLedger::Result done = ledger.Ack(7, c);
  EXPECT_EQ(done.outcome, Outcome::kCompleted);
  EXPECT_EQ(done.spout_task, 3);
  EXPECT_EQ(ledger.size(), 0u);
}

TEST(AckLedgerTest, AcksMayArriveBeforeTheInit) {
  AckLedger ledger;
  const uint64_t a = 0xabc, c = 0xdef;
  EXPECT_EQ(ledger.Ack(9, a ^ c).outcome, Outcome::kPending);
  EXPECT_EQ(ledger.Ack(9, c).outcome, Outcome::kPending);  // XOR back to a, no spout task yet
  const AckLedger::Result done = ledger.Init(9, a, 5);
  EXPECT_EQ(done.outcome, Outcome::kCompleted);
  EXPECT_EQ(done.spout_task, 5);
  // Even a zero XOR before the init does not decide: the spout task is not known.
  EXPECT_EQ(ledger.Ack(10, 0x5 ^ 0x5).outcome, Outcome::kPending);
  EXPECT_EQ(ledger.Init(10, 0, 6).outcome, Outcome::kCompleted);
}

TEST(AckLedgerTest, AFailDecidesOnceTheSpoutIsKnown) {
  AckLedger ledger;
  EXPECT_EQ(ledger.Fail(11).outcome, Outcome::kPending);  // before the init
  const AckLedger::Result failed = ledger.Init(11, 0x77, 2);
  EXPECT_EQ(failed.outcome, Outcome::kFailed);
  EXPECT_EQ(failed.spout_task, 2);
  EXPECT_EQ(ledger.size(), 0u);
  ledger.Init(12, 0x1, 2);
  EXPECT_EQ(ledger.Fail(12).outcome, Outcome::kFailed);
  // A late ack of a decided tree starts an entry that never decides; rotation forgets it.
  EXPECT_EQ(ledger.Ack(12, 0x1).outcome, Outcome::kPending);
  ledger.Rotate();
  EXPECT_EQ(ledger.Rotate(), 1u);
  EXPECT_EQ(ledger.size(), 0u);
}

TEST(AckLedgerTest, AMultiAnchoredTupleIsAckedInEachOfItsTrees) {
  // A join bolt emits j anchored to inputs x (tree 1) and y (tree 2): acking x XORs x ^ j into
  // tree 1, acking y XORs y ^ j into tree 2; the sink's ack of j goes to both trees.
  AckLedger ledger;
  const uint64_t x = 0x10, y = 0x20, j = 0x40;
  ledger.Init(1, x, 4);
  ledger.Init(2, y, 4);
  EXPECT_EQ(ledger.Ack(1, x ^ j).outcome, Outcome::kPending);
  EXPECT_EQ(ledger.Ack(2, y ^ j).outcome, Outcome::kPending);
  EXPECT_EQ(ledger.Ack(1, j).outcome, Outcome::kCompleted);
  EXPECT_EQ(ledger.Ack(2, j).outcome, Outcome::kCompleted);
}

TEST(AckLedgerTest, EntriesUntouchedForTwoRotationsAreForgotten) {
  AckLedger ledger;
  ledger.Init(1, 0x1, 1);
  ledger.Init(2, 0x2, 1);
  EXPECT_EQ(ledger.Rotate(), 0u);                            // both now in the older table
  EXPECT_EQ(ledger.Ack(2, 0x3).outcome, Outcome::kPending);  // touched: moves to the newer one
  EXPECT_EQ(ledger.Rotate(), 1u);                            // root 1 forgotten
  EXPECT_EQ(ledger.size(), 1u);
  EXPECT_EQ(ledger.Ack(2, 0x1).outcome, Outcome::kCompleted);  // 0x2 ^ 0x3 ^ 0x1 == 0
}

TEST(AckLedgerTest, AResetKeepsATreeAndNamesItsSpout) {
  AckLedger ledger;
  ledger.Init(1, 0x1, 7);
  EXPECT_EQ(ledger.Ack(9, 0x5).outcome, Outcome::kPending);  // an ack before its init
  for (int i = 0; i < 5; ++i) {
    ledger.Rotate();
    EXPECT_EQ(ledger.Reset(1), 7);  // the spout to pass the reset on to
  }
  EXPECT_EQ(ledger.Reset(9), 0);   // forgotten meanwhile: nobody to tell
  EXPECT_EQ(ledger.Reset(42), 0);  // never known; and a reset creates nothing
  EXPECT_EQ(ledger.size(), 1u);
  const AckLedger::Result r = ledger.Ack(1, 0x1);
  EXPECT_EQ(r.outcome, Outcome::kCompleted);
  EXPECT_EQ(r.spout_task, 7);
}

// Many interleaved random trees against a plain map: same decisions, every table operation
// (growth, probing, backward-shift deletion) exercised.
TEST(AckLedgerTest, AgreesWithAPlainMapOnRandomTrees) {
  std::mt19937_64 rng(1234);
  AckLedger ledger(4);  // small, so it grows
  struct Tree {
    uint64_t open = 0;
    std::vector<uint64_t> edges;
  };
  std::unordered_map<uint64_t, Tree> trees;
  int completed = 0;
  for (int round = 0; round < 20000; ++round) {
    if (trees.size() < 500 && (trees.empty() || rng() % 3 == 0)) {
      uint64_t root = rng() | 1;
      Tree t;
      for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) t.edges.push_back(rng());
      uint64_t x = 0;
      for (uint64_t e : t.edges) x ^= e;
      ASSERT_EQ(ledger.Init(root, x, 1).outcome, Outcome::kPending);
      trees.emplace(root, std::move(t));
      continue;
    }
    auto it = std::next(trees.begin(), static_cast<long>(rng() % trees.size()));
    Tree& t = it->second;
    const uint64_t edge = t.edges.back();
    t.edges.pop_back();
    uint64_t value = edge;
    if (rng() % 2 == 0 && t.edges.size() < 4) {  // emits a child anchored to it
      const uint64_t child = rng();
      t.edges.push_back(child);
      value ^= child;
    }
    const AckLedger::Result r = ledger.Ack(it->first, value);
    if (t.edges.empty()) {
      ASSERT_EQ(r.outcome, Outcome::kCompleted) << round;
      trees.erase(it);
      ++completed;
    } else {
      ASSERT_EQ(r.outcome, Outcome::kPending) << round;
    }
    ASSERT_EQ(ledger.size(), trees.size());
  }
  EXPECT_GT(completed, 1000);
}

// A spout's root: random bits, its lane, its pending slot (runtime/acking/ack_ids.h).
uint64_t LaneRoot(uint64_t random, uint32_t lane, uint32_t slot) {
  return (random << topology::TaskLayout::kAckerShift) | (uint64_t{lane} << kRootSlotBits) | slot;
}

TEST(AckLedgerTest, ALaneKeepsItsTreesBySlot) {
  AckLedger ledger;
  ledger.AddLane(3);
  const uint64_t r1 = LaneRoot(0xABC, 3, 0), r2 = LaneRoot(0xDEF, 3, 1);
  EXPECT_EQ(ledger.Init(r1, 0x11, 3).outcome, Outcome::kPending);
  EXPECT_EQ(ledger.Ack(r2, 0x22).outcome, Outcome::kPending);  // before its init
  EXPECT_EQ(ledger.size(), 2u);
  const AckLedger::Result done = ledger.Init(r2, 0x22, 3);
  EXPECT_EQ(done.outcome, Outcome::kCompleted);
  EXPECT_EQ(done.spout_task, 3);
  EXPECT_EQ(ledger.Fail(r1).outcome, Outcome::kFailed);
  EXPECT_EQ(ledger.size(), 0u);
  // The freed slot takes the spout's next tree.
  const uint64_t r3 = LaneRoot(0x123, 3, 0);
  EXPECT_EQ(ledger.Init(r3, 0x33, 3).outcome, Outcome::kPending);
  EXPECT_EQ(ledger.Ack(r3, 0x33).outcome, Outcome::kCompleted);
  // A slot past what a lane array holds goes to the tables, and works the same.
  const uint64_t far = LaneRoot(0x9, 3, AckLedger::kMaxLaneSlots + 7);
  EXPECT_EQ(ledger.Init(far, 0x44, 3).outcome, Outcome::kPending);
  EXPECT_EQ(ledger.Ack(far, 0x44).outcome, Outcome::kCompleted);
  EXPECT_EQ(ledger.size(), 0u);
}

TEST(AckLedgerTest, AStaleTreeInASlotSendsTheNextRootToTheTables) {
  AckLedger ledger;
  ledger.AddLane(3);
  // The spout timed r1 out and reused its slot for r2; a late ack of r1 holds the slot.
  const uint64_t r1 = LaneRoot(0x1, 3, 5), r2 = LaneRoot(0x2, 3, 5);
  EXPECT_EQ(ledger.Ack(r1, 0x77).outcome, Outcome::kPending);
  EXPECT_EQ(ledger.Init(r2, 0x11 ^ 0x22, 3).outcome, Outcome::kPending);
  EXPECT_EQ(ledger.size(), 2u);
  EXPECT_EQ(ledger.Ack(r2, 0x11).outcome, Outcome::kPending);
  // r2 stays in the tables after r1 frees the slot: the next update must find it there.
  EXPECT_EQ(ledger.Init(r1, 0x77, 3).outcome, Outcome::kCompleted);
  EXPECT_EQ(ledger.size(), 1u);
  const AckLedger::Result done = ledger.Ack(r2, 0x22);
  EXPECT_EQ(done.outcome, Outcome::kCompleted);
  EXPECT_EQ(done.spout_task, 3);
  EXPECT_EQ(ledger.size(), 0u);
  // Nothing of r2 was left in the slot: the next tree there starts clean.
  const uint64_t r3 = LaneRoot(0x3, 3, 5);
  EXPECT_EQ(ledger.Init(r3, 0x5, 3).outcome, Outcome::kPending);
  EXPECT_EQ(ledger.Ack(r3, 0x5).outcome, Outcome::kCompleted);
}

TEST(AckLedgerTest, LaneEntriesUntouchedForTwoRotationsAreForgotten) {
  AckLedger ledger;
  ledger.AddLane(2);
  const uint64_t r1 = LaneRoot(0x1, 2, 0), r2 = LaneRoot(0x2, 2, 1), r3 = LaneRoot(0x3, 2, 2);
  ledger.Init(r1, 0x1, 2);
  ledger.Init(r2, 0x2, 2);
  ledger.Init(r3, 0x4, 2);
  EXPECT_EQ(ledger.Rotate(), 0u);
  EXPECT_EQ(ledger.Ack(r2, 0x3).outcome, Outcome::kPending);  // touched
  EXPECT_EQ(ledger.Reset(r3), 2);                             // touched by a reset
  EXPECT_EQ(ledger.Rotate(), 1u);                             // r1 forgotten
  EXPECT_EQ(ledger.size(), 2u);
  EXPECT_EQ(ledger.Reset(r1), 0);
  EXPECT_EQ(ledger.Ack(r2, 0x1).outcome, Outcome::kCompleted);  // 0x2 ^ 0x3 ^ 0x1 == 0
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(ledger.Reset(r3), 2);
    ledger.Rotate();
  }
  EXPECT_EQ(ledger.Ack(r3, 0x4).outcome, Outcome::kCompleted);
  ledger.Ack(r1, 0x9);  // a late ack: a fresh entry, forgotten two rotations later
  ledger.Rotate();
  EXPECT_EQ(ledger.Rotate(), 1u);
  EXPECT_EQ(ledger.size(), 0u);
}

// Two spouts' lanes, slots reused last-in first-out as the spout does, trees timing out with
// acks still to come, and roots of an unregistered lane, against a plain map.
TEST(AckLedgerTest, LanesAgreeWithAPlainMapOnRandomTrees) {
  std::mt19937_64 rng(99);
  AckLedger ledger;
  ledger.AddLane(1);
  ledger.AddLane(2);
  struct Tree {
    int spout = 0;
    std::vector<uint64_t> edges;
  };
  std::unordered_map<uint64_t, Tree> trees;
  std::vector<uint32_t> free_slots[3];
  uint32_t next_slot[3] = {0, 0, 0};
  std::size_t stale = 0;  // entries of abandoned trees the ledger still holds
  int completed = 0;
  for (int round = 0; round < 40000; ++round) {
    if (trees.size() < 300 && (trees.empty() || rng() % 3 == 0)) {
      const int spout = 1 + static_cast<int>(rng() % 3);  // lane 3 is not registered
      std::vector<uint32_t>& free = free_slots[spout - 1];
      uint32_t slot = 0;
      if (!free.empty()) {
        slot = free.back();
        free.pop_back();
      } else {
        slot = next_slot[spout - 1]++;
      }
      const uint64_t root = LaneRoot(rng() >> 40, static_cast<uint32_t>(spout), slot);
      Tree t;
      t.spout = spout;
      for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) t.edges.push_back(rng() | 1);
      uint64_t x = 0;
      for (uint64_t e : t.edges) x ^= e;
      ASSERT_EQ(ledger.Init(root, x, spout).outcome, Outcome::kPending);
      trees.emplace(root, std::move(t));
      continue;
    }
    auto it = std::next(trees.begin(), static_cast<long>(rng() % trees.size()));
    Tree& t = it->second;
    const uint64_t root = it->first;
    if (rng() % 50 == 0) {  // the spout times it out: the slot is reused, the entry stays
      free_slots[t.spout - 1].push_back(RootSlot(root));
      trees.erase(it);
      ++stale;
      ASSERT_EQ(ledger.size(), trees.size() + stale);
      continue;
    }
    const uint64_t edge = t.edges.back();
    t.edges.pop_back();
    uint64_t value = edge;
    if (rng() % 2 == 0 && t.edges.size() < 4) {
      const uint64_t child = rng() | 1;
      t.edges.push_back(child);
      value ^= child;
    }
    const AckLedger::Result r = ledger.Ack(root, value);
    if (t.edges.empty()) {
      ASSERT_EQ(r.outcome, Outcome::kCompleted) << round;
      ASSERT_EQ(r.spout_task, t.spout);
      free_slots[t.spout - 1].push_back(RootSlot(root));
      trees.erase(it);
      ++completed;
    } else {
      ASSERT_EQ(r.outcome, Outcome::kPending) << round;
    }
    ASSERT_EQ(ledger.size(), trees.size() + stale);
    if (round % 10000 == 9999) {  // two rotations, the live trees touched in between
      // (An abandoned tree untouched since the last pair goes at the first one.)
      std::size_t forgotten = ledger.Rotate();
      for (const auto& [root_id, tree] : trees) ASSERT_EQ(ledger.Reset(root_id), tree.spout);
      forgotten += ledger.Rotate();
      ASSERT_EQ(forgotten, stale);
      stale = 0;
      ASSERT_EQ(ledger.size(), trees.size());
    }
  }
  EXPECT_GT(completed, 5000);
}

}  // namespace
}  // namespace tempest::runtime

// The acker's XOR ledger: Storm's tuple-tree arithmetic, in any arrival order, with timeouts by
// rotation.
#include "runtime/ack_ledger.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

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

}  // namespace
}  // namespace tempest::runtime

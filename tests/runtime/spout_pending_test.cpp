// SpoutPending: Storm's two-generation timeout rule, with rotation driven by hand.
#include "runtime/spout_pending.h"

#include <gtest/gtest.h>

namespace tempest::runtime {
namespace {

using topology::Value;

const SpoutPending::TimePoint kT0{};

TEST(SpoutPendingTest, ATupleTimesOutAtTheSecondRotationAfterItsEmit) {
  SpoutPending p;
  p.Add(1, Value(int64_t{10}), kT0);
  std::vector<SpoutPending::Entry> expired;
  p.Rotate(expired);  // T after the emit at the latest: not yet
  EXPECT_TRUE(expired.empty());
  EXPECT_EQ(p.size(), 1u);
  p.Add(2, Value(int64_t{20}), kT0);
  p.Rotate(expired);  // between T and 2T after the emit of 1
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].message_id, Value(int64_t{10}));
  EXPECT_EQ(p.size(), 1u);
  expired.clear();
  p.Rotate(expired);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].message_id, Value(int64_t{20}));
  EXPECT_TRUE(p.empty());
}

TEST(SpoutPendingTest, TakeRemovesOnceAndLateRepliesAreIgnored) {
  SpoutPending p;
  p.Add(7, Value("a"), kT0);
  std::vector<SpoutPending::Entry> expired;
  p.Rotate(expired);  // now in the older generation: still found
  const auto e = p.Take(7);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->message_id, Value("a"));
  EXPECT_FALSE(p.Take(7).has_value());  // acked twice, or acked after it timed out
  EXPECT_FALSE(p.Take(8).has_value());  // never known
  EXPECT_FALSE(p.Touch(8));
  EXPECT_TRUE(p.empty());
}

TEST(SpoutPendingTest, TouchRestartsTheTimeout) {
  SpoutPending p;
  p.Add(1, Value(int64_t{1}), kT0);
  std::vector<SpoutPending::Entry> expired;
  for (int i = 0; i < 10; ++i) {
    p.Rotate(expired);
    EXPECT_TRUE(p.Touch(1));  // reset_timeout between every two rotations keeps it alive
  }
  EXPECT_TRUE(expired.empty());
  p.Rotate(expired);
  p.Rotate(expired);
  EXPECT_EQ(expired.size(), 1u);
}

}  // namespace
}  // namespace tempest::runtime

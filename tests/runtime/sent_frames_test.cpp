// What a spout task keeps of the frames it sent to another worker, for their frame acks
// (runtime/acking/sent_frames.h).
#include "runtime/acking/sent_frames.h"

#include <gtest/gtest.h>

#include <chrono>
#include <span>
#include <vector>

namespace tempest::runtime {
namespace {

using Anchor = SentFrames::Anchor;
const SentFrames::Clock::time_point kT0{};

std::vector<Anchor> V(std::span<const Anchor> rows) { return {rows.begin(), rows.end()}; }

// Sends a frame of `n` tuples with one anchor each: roots first, first + 1, ..., edges root * 10.
void SendFrame(SentFrames& s, uint64_t first, int n, SentFrames::Clock::time_point at = kT0) {
  for (int i = 0; i < n; ++i) {
    const Anchor a{first + i, (first + i) * 10};
    s.Add({&a, 1});
  }
  s.Sent(at);
}

TEST(SentFramesTest, AFrameAckFindsItsFrameByTheFirstAnchorAndGivesItsRows) {
  SentFrames s(1);
  SendFrame(s, 100, 5);
  ASSERT_EQ(s.kept(), 1u);
  EXPECT_TRUE(s.Rows(0, 5).empty()) << "no frame ack started yet";
  ASSERT_TRUE(s.Start(100, 1000));
  EXPECT_EQ(V(s.Rows(1, 3)), (std::vector<Anchor>{{101, 1010}, {102, 1020}}));
  EXPECT_EQ(V(s.Rows(3, 99)), (std::vector<Anchor>{{103, 1030}, {104, 1040}})) << "clamped";
  EXPECT_TRUE(s.Rows(5, 9).empty());
  EXPECT_TRUE(s.Rows(3, 2).empty());
}

TEST(SentFramesTest, AFrameWithATupleOfNoneOrSeveralAnchorsIsNotKept) {
  SentFrames s(1);
  const Anchor a{1, 10};
  s.Add({&a, 1});
  s.Add({});  // untracked
  s.Sent(kT0);
  const Anchor two[] = {{2, 20}, {3, 30}};
  s.Add({&a, 1});
  s.Add(two);
  s.Sent(kT0);
  EXPECT_EQ(s.kept(), 0u);
  SendFrame(s, 7, 2);  // the next frame is kept again
  EXPECT_EQ(s.kept(), 1u);
  EXPECT_FALSE(s.Start(1, 10));
}

TEST(SentFramesTest, StartingTheNextFrameAckDropsTheFrameBeforeAndSkippedOnes) {
  SentFrames s(1);
  SendFrame(s, 10, 2);
  SendFrame(s, 20, 2);
  SendFrame(s, 30, 2);
  SendFrame(s, 40, 2);
  ASSERT_TRUE(s.Start(10, 100));
  EXPECT_EQ(s.kept(), 4u);
  // The frame of 20 got no frame ack (dropped by the receiver): the ack of 30 drops it too.
  ASSERT_TRUE(s.Start(30, 300));
  EXPECT_EQ(s.kept(), 2u);
  EXPECT_EQ(V(s.Rows(0, 2)), (std::vector<Anchor>{{30, 300}, {31, 310}}));
}

TEST(SentFramesTest, AnAckNamingNoKeptFrameDropsNothingAndAppliesNothing) {
  SentFrames s(1);
  SendFrame(s, 10, 2);
  SendFrame(s, 20, 2);
  EXPECT_FALSE(s.Start(10, 999)) << "right root, wrong edge";
  EXPECT_FALSE(s.Start(15, 150));
  EXPECT_EQ(s.kept(), 2u);
  EXPECT_TRUE(s.Rows(0, 2).empty());
  ASSERT_TRUE(s.Start(20, 200));
  EXPECT_EQ(s.kept(), 1u);
}

TEST(SentFramesTest, FramesOlderThanTheCutOffExpire) {
  using std::chrono::seconds;
  SentFrames s(1);
  SendFrame(s, 10, 1, kT0);
  SendFrame(s, 20, 1, kT0 + seconds(5));
  SendFrame(s, 30, 1, kT0 + seconds(10));
  ASSERT_TRUE(s.Start(10, 100));
  s.Expire(kT0 + seconds(6));
  EXPECT_EQ(s.kept(), 1u);
  EXPECT_TRUE(s.Rows(0, 1).empty()) << "the started frame expired";
  EXPECT_FALSE(s.Start(20, 200));
  ASSERT_TRUE(s.Start(30, 300));
  EXPECT_EQ(V(s.Rows(0, 1)), (std::vector<Anchor>{{30, 300}}));
}

}  // namespace
}  // namespace tempest::runtime

// RemoteLink between two workers in one process (real ZeroMQ sockets): greetings, credit-based
// flow control, the end-of-stream handshake and bad frames. Waits are on the links' notify hook
// or a queue's pop, with long deadlines.
#include "runtime/remote_link.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <future>
#include <mutex>

#include "transport/frame.h"

namespace tempest::runtime {
namespace {

using namespace std::chrono_literals;

// Tasks 1 and 3 run on worker 0, task 2 on worker 1.
const std::vector<int> kWorkerOf = {0, 0, 1, 0};

class RemoteLinkTest : public ::testing::Test {
 protected:
  RemoteLinkTest() : dir_(transport::MakeRunDir("link")) {
    for (int w = 0; w < 2; ++w) {
      transport::TransportOptions t;
      t.self = w;
      t.run_dir = dir_;
      links_[w] = std::make_unique<RemoteLink>(
          transport::MakeZmqTransport(t),
          RemoteLink::Options{w, 2, kWorkerOf, /*credit_tuples=*/10, [this] { Notify(); }});
    }
    links_[0]->StartReceiving({nullptr, &q1_, nullptr, &q3_});
    links_[1]->StartReceiving({nullptr, nullptr, &q2_, nullptr});
    const std::vector<std::string> endpoints = {links_[0]->endpoint(), links_[1]->endpoint()};
    links_[0]->Connect(endpoints);
    links_[1]->Connect(endpoints);
  }
  ~RemoteLinkTest() override {
    links_[0].reset();
    links_[1].reset();
    std::filesystem::remove_all(dir_);
  }

  void Notify() {
    { std::lock_guard lock(mu_); }
    cv_.notify_all();
  }
  bool WaitUntil(const std::function<bool()>& ready) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 30s, ready);
  }
  // The next envelopes of a queue (blocking up to 30 s).
  std::vector<Envelope> Pop(TaskQueue& q) {
    std::vector<Envelope> got;
    q.PopAllUntil(got, std::chrono::steady_clock::now() + 30s);
    return got;
  }
  static std::string Frame(int from, int to, uint32_t tuples) {
    transport::FrameBuilder b;
    b.Begin(from, to);
    for (uint32_t i = 0; i < tuples; ++i) b.Add(0, topology::Values{static_cast<int64_t>(i)});
    return std::string(b.Finish());
  }

  std::string dir_;
  TaskQueue q1_{100}, q2_{100}, q3_{100};
  std::unique_ptr<RemoteLink> links_[2];
  std::mutex mu_;
  std::condition_variable cv_;
};

TEST_F(RemoteLinkTest, EveryPeerIsHeardFrom) {
  EXPECT_TRUE(WaitUntil([&] { return links_[0]->HeardFromAllPeers(); }));
  EXPECT_TRUE(WaitUntil([&] { return links_[1]->HeardFromAllPeers(); }));
  EXPECT_TRUE(links_[0]->IsLocal(3));
  EXPECT_FALSE(links_[0]->IsLocal(2));
}

TEST_F(RemoteLinkTest, ASenderWaitsForCreditAndNothingIsLost) {
  ASSERT_TRUE(links_[0]->SendTuples(2, Frame(1, 2, 10), 10));  // all 10 credits
  auto second = std::async(std::launch::async, [&] {
    return links_[0]->SendTuples(2, Frame(1, 2, 4), 4);  // has to wait
  });
  std::vector<Envelope> got = Pop(q2_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, Envelope::Kind::kFrame);
  EXPECT_EQ(got[0].frame_tuples, 10u);
  EXPECT_EQ(got[0].from_task, 1);
  // Without credit the second frame stays with its sender.
  EXPECT_EQ(second.wait_for(100ms), std::future_status::timeout);
  got.clear();
  EXPECT_TRUE(q2_.PopAllUntil(got, std::chrono::steady_clock::now() + 50ms));
  EXPECT_TRUE(got.empty());
  links_[1]->ReturnCredit(0, 2, 10);
  EXPECT_TRUE(second.get());
  got = Pop(q2_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].frame_tuples, 4u);
}

TEST_F(RemoteLinkTest, EndOfStreamIsConfirmedByTheReceiver) {
  EXPECT_TRUE(links_[0]->AllEndOfStreamConfirmed());
  ASSERT_TRUE(links_[0]->SendTuples(2, Frame(1, 2, 3), 3));
  ASSERT_TRUE(links_[0]->SendEndOfStream(1, 2));
  EXPECT_TRUE(WaitUntil([&] { return links_[0]->AllEndOfStreamConfirmed(); }));
  std::vector<Envelope> got;
  while (got.size() < 2) {
    std::vector<Envelope> more = Pop(q2_);
    ASSERT_FALSE(more.empty());
    for (Envelope& e : more) got.push_back(std::move(e));
  }
  EXPECT_EQ(got[0].kind, Envelope::Kind::kFrame);  // FIFO: the data, then its end
  EXPECT_EQ(got[1].kind, Envelope::Kind::kEndOfStream);
  EXPECT_EQ(got[1].from_task, 1);
}

TEST_F(RemoteLinkTest, BadAndMisaddressedFramesAreCountedAndDropped) {
  transport::TransportOptions t;
  t.self = 0;
  t.run_dir = dir_ + "/rogue";
  std::filesystem::create_directory(t.run_dir);
  auto rogue = transport::MakeZmqTransport(t);
  rogue->Connect({rogue->endpoint(), links_[1]->endpoint()});
  std::string to_self_fed, unknown_task;
  transport::EncodeControlFrame(transport::FrameKind::kEndOfStream, 2, 2, to_self_fed);
  transport::EncodeControlFrame(transport::FrameKind::kEndOfStream, 1, 9, unknown_task);
  std::string good;
  transport::EncodeControlFrame(transport::FrameKind::kEndOfStream, 1, 2, good);
  for (const std::string& bad :
       {std::string("not msgpack"), Frame(1, 2, 2).substr(0, 9), to_self_fed, unknown_task, good}) {
    rogue->Send(1, bad);
  }
  // The good frame, behind the bad ones on the same channel, arrives; they were dropped.
  const std::vector<Envelope> got = Pop(q2_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, Envelope::Kind::kEndOfStream);
  EXPECT_EQ(links_[1]->dropped_frames(), 4u);
}

TEST_F(RemoteLinkTest, CloseWakesABlockedSender) {
  ASSERT_TRUE(links_[0]->SendTuples(2, Frame(1, 2, 10), 10));
  auto blocked =
      std::async(std::launch::async, [&] { return links_[0]->SendTuples(2, Frame(1, 2, 1), 1); });
  links_[0]->Close();
  EXPECT_FALSE(blocked.get());
  EXPECT_FALSE(links_[0]->SendEndOfStream(1, 2));
}

}  // namespace
}  // namespace tempest::runtime

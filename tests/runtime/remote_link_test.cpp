// RemoteLink between two workers in one process (real ZeroMQ sockets): greetings, credit-based
// flow control, the end-of-stream handshake and bad frames, each with every task reached through
// its worker's socket and with every task reading an inbox of its own. Waits are on the links'
// notify hook or a queue's pop, with long deadlines.
#include "runtime/process/remote_link.h"

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

class RemoteLinkTest : public ::testing::TestWithParam<bool> {
 protected:
  RemoteLinkTest() : dir_(transport::MakeRunDir("link")) {
    for (int w = 0; w < 2; ++w) {
      transport::TransportOptions t;
      t.self = w;
      t.run_dir = dir_;
      std::vector<int> inboxes;
      if (GetParam()) inboxes = w == 0 ? std::vector<int>{1, 3} : std::vector<int>{2};
      links_[w] = std::make_unique<RemoteLink>(
          transport::MakeZmqTransport(t), RemoteLink::Options{w, 2, kWorkerOf, /*credit_tuples=*/10,
                                                              [this] { Notify(); }, inboxes});
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

TEST_P(RemoteLinkTest, EveryPeerIsHeardFrom) {
  EXPECT_TRUE(WaitUntil([&] { return links_[0]->HeardFromAllPeers(); }));
  EXPECT_TRUE(WaitUntil([&] { return links_[1]->HeardFromAllPeers(); }));
  EXPECT_TRUE(links_[0]->IsLocal(3));
  EXPECT_FALSE(links_[0]->IsLocal(2));
}

TEST_P(RemoteLinkTest, ASenderWaitsForCreditAndNothingIsLost) {
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

TEST_P(RemoteLinkTest, EndOfStreamIsConfirmedByTheReceiver) {
  EXPECT_TRUE(links_[0]->AllEndOfStreamConfirmed());
  ASSERT_TRUE(links_[0]->SendTuples(2, Frame(1, 2, 3), 3));
  ASSERT_TRUE(links_[0]->SendEndOfStream(1, 2));
  // (With an inbox the task confirms as it takes the marker, so it is taken first.)
  std::vector<Envelope> got;
  while (got.size() < 2) {
    std::vector<Envelope> more = Pop(q2_);
    ASSERT_FALSE(more.empty());
    for (Envelope& e : more) got.push_back(std::move(e));
  }
  EXPECT_TRUE(WaitUntil([&] { return links_[0]->AllEndOfStreamConfirmed(); }));
  EXPECT_EQ(got[0].kind, Envelope::Kind::kFrame);  // FIFO: the data, then its end
  EXPECT_EQ(got[1].kind, Envelope::Kind::kEndOfStream);
  EXPECT_EQ(got[1].from_task, 1);
}

// A task that ended (or does not run) no longer takes from its inbox: the receiving thread
// does, so what is sent to it is still confirmed and queued, as without inboxes.
TEST_P(RemoteLinkTest, AReleasedInboxIsReadByTheReceivingThread) {
  links_[1]->ReleaseInbox(2);
  ASSERT_TRUE(links_[0]->SendTuples(2, Frame(1, 2, 3), 3));
  ASSERT_TRUE(links_[0]->SendEndOfStream(1, 2));
  ASSERT_TRUE(links_[0]->SendClose(1, 2));
  EXPECT_TRUE(WaitUntil([&] { return links_[0]->AllEndOfStreamConfirmed(); }));
  q2_.AttachSource(nullptr);  // the queue itself holds them now
  std::vector<Envelope> got;
  while (got.size() < 3) {
    std::vector<Envelope> more = Pop(q2_);
    ASSERT_FALSE(more.empty());
    for (Envelope& e : more) got.push_back(std::move(e));
  }
  EXPECT_EQ(got[0].kind, Envelope::Kind::kFrame);
  EXPECT_EQ(got[1].kind, Envelope::Kind::kEndOfStream);
  EXPECT_EQ(got[2].kind, Envelope::Kind::kClose);
  EXPECT_EQ(links_[1]->dropped_frames(), 0u);
}

TEST_P(RemoteLinkTest, BadAndMisaddressedFramesAreCountedAndDropped) {
  transport::TransportOptions t;
  t.self = 0;
  t.run_dir = dir_ + "/rogue";
  std::filesystem::create_directory(t.run_dir);
  auto rogue = transport::MakeZmqTransport(t);
  const RemoteLink::Endpoints target = RemoteLink::ParseEndpoints(links_[1]->endpoint());
  rogue->Connect({rogue->endpoint(), target.worker});
  if (GetParam()) {
    ASSERT_EQ(target.tasks.size(), 1u);
    EXPECT_EQ(target.tasks[0].first, 2);
    rogue->ConnectTask(2, target.tasks[0].second);
  }
  // With inboxes: the same frames sent to task 2's inbox (a frame for another task is
  // misaddressed there too).
  const auto send = [&](const std::string& bytes) {
    return GetParam() ? rogue->SendToTask(2, bytes) : rogue->Send(1, bytes);
  };
  std::string to_self_fed, unknown_task;
  transport::EncodeControlFrame(transport::FrameKind::kEndOfStream, 2, 2, to_self_fed);
  transport::EncodeControlFrame(transport::FrameKind::kEndOfStream, 1, 9, unknown_task);
  std::string good;
  transport::EncodeControlFrame(transport::FrameKind::kEndOfStream, 1, 2, good);
  for (const std::string& bad :
       {std::string("not msgpack"), Frame(1, 2, 2).substr(0, 9), to_self_fed, unknown_task, good}) {
    send(bad);
  }
  // The good frame, behind the bad ones on the same channel, arrives; they were dropped.
  const std::vector<Envelope> got = Pop(q2_);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, Envelope::Kind::kEndOfStream);
  EXPECT_EQ(links_[1]->dropped_frames(), 4u);
}

TEST_P(RemoteLinkTest, CloseWakesABlockedSender) {
  ASSERT_TRUE(links_[0]->SendTuples(2, Frame(1, 2, 10), 10));
  auto blocked =
      std::async(std::launch::async, [&] { return links_[0]->SendTuples(2, Frame(1, 2, 1), 1); });
  links_[0]->Close();
  EXPECT_FALSE(blocked.get());
  EXPECT_FALSE(links_[0]->SendEndOfStream(1, 2));
}

TEST_P(RemoteLinkTest, TheEndpointTextListsExactlyTheInboxes) {
  const RemoteLink::Endpoints e = RemoteLink::ParseEndpoints(links_[0]->endpoint());
  EXPECT_NE(e.worker.find("worker-0.sock"), std::string::npos) << e.worker;
  if (!GetParam()) {
    EXPECT_TRUE(e.tasks.empty());
    EXPECT_EQ(links_[0]->endpoint(), e.worker);
    return;
  }
  ASSERT_EQ(e.tasks.size(), 2u);
  EXPECT_EQ(e.tasks[0].first, 1);
  EXPECT_NE(e.tasks[0].second.find("worker-0-task-1.sock"), std::string::npos);
  EXPECT_EQ(e.tasks[1].first, 3);
  EXPECT_EQ(RemoteLink::FormatEndpoints(e), links_[0]->endpoint());
}

INSTANTIATE_TEST_SUITE_P(Channels, RemoteLinkTest, ::testing::Bool(), [](const auto& info) {
  return info.param ? "task_inboxes" : "worker_sockets";
});

TEST(RemoteLinkEndpointsTest, BadTextIsRefusedWithTheEntry) {
  EXPECT_EQ(RemoteLink::ParseEndpoints("ipc:///a/w.sock").worker, "ipc:///a/w.sock");
  for (const char* bad : {"", "ipc:///a/w.sock\n2", "ipc:///a/w.sock\nx=ipc:///b",
                          "ipc:///a/w.sock\n0=ipc:///b", "ipc:///a/w.sock\n2="}) {
    try {
      RemoteLink::ParseEndpoints(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("worker endpoint list"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace tempest::runtime

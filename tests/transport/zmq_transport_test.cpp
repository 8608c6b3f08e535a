// The ZeroMQ data plane between two workers in one process: FIFO per channel, both endpoint
// kinds, reconnecting to a restarted peer, task inboxes, and the private run folder.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "transport/transport.h"

namespace tempest::transport {
namespace {

using namespace std::chrono_literals;

class ZmqTransportTest : public ::testing::TestWithParam<EndpointKind> {
 protected:
  void SetUp() override { dir_ = MakeRunDir("test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Transport> Make(int self) {
    TransportOptions o;
    o.self = self;
    o.endpoint = GetParam();
    o.run_dir = dir_;
    return MakeZmqTransport(o);
  }

  std::string dir_;
};

TEST_P(ZmqTransportTest, MessagesArriveInOrderOnEachChannel) {
  auto a = Make(0), b = Make(1);
  const std::vector<std::string> endpoints = {a->endpoint(), b->endpoint()};
  a->Connect(endpoints);
  b->Connect(endpoints);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(a->Send(1, "m" + std::to_string(i)));
  ASSERT_TRUE(b->Send(0, "back"));
  std::string got;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(b->Receive(got, 10s)) << i;
    EXPECT_EQ(got, "m" + std::to_string(i));
  }
  ASSERT_TRUE(a->Receive(got, 10s));
  EXPECT_EQ(got, "back");
  EXPECT_FALSE(b->Receive(got, 10ms));  // nothing more
  EXPECT_EQ(a->sent(), 1000u);
  EXPECT_EQ(b->received(), 1000u);
}

TEST_P(ZmqTransportTest, AReconnectReachesTheRestartedPeer) {
  auto a = Make(0);
  auto b = Make(1);
  a->Connect({a->endpoint(), b->endpoint()});
  b.reset();  // the peer dies
  auto b2 = Make(1);
  b2->Connect({a->endpoint(), b2->endpoint()});
  a->Reconnect(1, b2->endpoint());
  ASSERT_TRUE(a->Send(1, "hello again"));
  std::string got;
  ASSERT_TRUE(b2->Receive(got, 10s));
  EXPECT_EQ(got, "hello again");
}

TEST_P(ZmqTransportTest, ATaskInboxGetsOnlyWhatIsSentToItsTaskInOrder) {
  auto a = Make(0), b = Make(1);
  auto inbox = b->OpenTaskInbox(7);
  if (GetParam() == EndpointKind::kIpc) {
    EXPECT_EQ(inbox->endpoint(), "ipc://" + dir_ + "/worker-1-task-7.sock");
  }
  EXPECT_NE(inbox->endpoint(), b->endpoint());
  a->ConnectTask(7, inbox->endpoint());
  a->Connect({a->endpoint(), b->endpoint()});
  for (int i = 0; i < 500; ++i) {
    ASSERT_TRUE(a->SendToTask(7, "t" + std::to_string(i)));
    if (i % 100 == 0) {
      ASSERT_TRUE(a->Send(1, "w" + std::to_string(i)));
    }
  }
  std::string got;
  for (int i = 0; i < 500; ++i) {
    while (!inbox->TryReceive(got)) inbox->Wait(-1, 10'000);
    EXPECT_EQ(got, "t" + std::to_string(i));
  }
  EXPECT_FALSE(inbox->TryReceive(got));
  for (int i = 0; i < 500; i += 100) {
    ASSERT_TRUE(b->Receive(got, 10s));
    EXPECT_EQ(got, "w" + std::to_string(i));  // the worker socket's share, and only that
  }
  EXPECT_FALSE(b->Receive(got, 10ms));
  EXPECT_FALSE(a->SendToTask(8, "nobody"));  // never connected
  EXPECT_EQ(a->sent(), 505u);
}

TEST_P(ZmqTransportTest, AnInboxWaitEndsOnAMessageOnTheWakeFdOrAtItsTimeout) {
  auto a = Make(0), b = Make(1);
  auto inbox = b->OpenTaskInbox(3);
  a->ConnectTask(3, inbox->endpoint());
  const int wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  ASSERT_GE(wake, 0);

  auto start = std::chrono::steady_clock::now();
  inbox->Wait(wake, 30);  // nothing: the timeout ends it
  // ZeroMQ's poll keeps time on a coarse millisecond clock: it may end a little early.
  EXPECT_GE(std::chrono::steady_clock::now() - start, 25ms);

  std::thread waker([wake] {
    const uint64_t one = 1;
    ASSERT_EQ(::write(wake, &one, sizeof one), static_cast<ssize_t>(sizeof one));
  });
  start = std::chrono::steady_clock::now();
  inbox->Wait(wake, 60'000);  // the eventfd ends it (a missed wake would hang for a minute)
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
  waker.join();
  uint64_t count = 0;
  ASSERT_EQ(::read(wake, &count, sizeof count), static_cast<ssize_t>(sizeof count));
  EXPECT_EQ(count, 1u);

  std::thread sender([&a] { ASSERT_TRUE(a->SendToTask(3, "ping")); });
  std::string got;
  while (!inbox->TryReceive(got)) inbox->Wait(wake, 60'000);
  EXPECT_EQ(got, "ping");
  sender.join();
  ::close(wake);
}

TEST_P(ZmqTransportTest, ReconnectingATaskReachesItsNewInbox) {
  auto a = Make(0);
  auto b = Make(1);
  a->ConnectTask(4, b->OpenTaskInbox(4)->endpoint());  // that inbox closes at once
  b.reset();
  auto b2 = Make(1);
  auto inbox = b2->OpenTaskInbox(4);
  a->ConnectTask(4, inbox->endpoint());
  ASSERT_TRUE(a->SendToTask(4, "again"));
  std::string got;
  while (!inbox->TryReceive(got)) inbox->Wait(-1, 10'000);
  EXPECT_EQ(got, "again");
}

INSTANTIATE_TEST_SUITE_P(Endpoints, ZmqTransportTest,
                         ::testing::Values(EndpointKind::kIpc, EndpointKind::kTcp),
                         [](const auto& info) {
                           return info.param == EndpointKind::kIpc ? "ipc" : "tcp";
                         });

TEST(RunDirTest, IsPrivateAndNamedAfterTheTopology) {
  const std::string dir = MakeRunDir("word count/1");
  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_NE(dir.find(fmt::format("/tempest-word-count-1-{}-", ::getpid())), std::string::npos)
      << dir;
  std::filesystem::remove_all(dir);
}

// A supervisor killed with kill -9 leaves its run folder: the next one removes it at start, and
// leaves alone a live supervisor's folder and anything that is not a run folder.
TEST(RunDirTest, FoldersOfSupervisorsThatAreGoneAreRemovedAtStart) {
  namespace fs = std::filesystem;
  const fs::path base = fs::temp_directory_path() / fmt::format("rundir-test-{}", ::getpid());
  fs::remove_all(base);
  fs::create_directories(base);
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ASSERT_EQ(::waitpid(dead, nullptr, 0), dead);
  const fs::path orphan = base / fmt::format("tempest-wc-{}-AbCdEf", dead);
  const fs::path live = base / fmt::format("tempest-wc-{}-GhIjKl", ::getpid());
  const fs::path other = base / fmt::format("not-tempest-{}-MnOpQr", dead);
  for (const fs::path& d : {orphan, live, other}) {
    fs::create_directories(d);
    std::ofstream(d / "worker-0.sock") << "x";
  }
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");  // it would win over TMPDIR
  const std::string saved_xdg = xdg != nullptr ? xdg : "";
  ::unsetenv("XDG_RUNTIME_DIR");
  ::setenv("TMPDIR", base.c_str(), 1);
  const std::string mine = MakeRunDir("wc");
  ::unsetenv("TMPDIR");
  if (xdg != nullptr) ::setenv("XDG_RUNTIME_DIR", saved_xdg.c_str(), 1);
  EXPECT_FALSE(fs::exists(orphan));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_EQ(fs::path(mine).parent_path(), base);
  EXPECT_EQ(RemoveOrphanedRunDirs(base.string()), 0);  // nothing left to remove
  fs::remove_all(base);
}

TEST(ZmqTransportErrorTest, AnEndpointThatCannotBeBoundIsNamed) {
  TransportOptions o;
  o.run_dir = "/nonexistent/folder";
  try {
    MakeZmqTransport(o);
    FAIL() << "bound in a folder that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("cannot listen on ipc:///nonexistent/folder/worker-0.sock"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tempest::transport

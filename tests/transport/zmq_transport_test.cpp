// The ZeroMQ data plane between two workers in one process: FIFO per channel, both endpoint
// kinds (tcp with the run's CURVE keys), reconnecting to a restarted peer, task inboxes, peers
// without the keys reaching nothing, and the private run folder.
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
#include <functional>
#include <thread>
#include <zmq.hpp>

#include "transport/frame.h"
#include "transport/transport.h"

namespace tempest::transport {
namespace {

using namespace std::chrono_literals;

class ZmqTransportTest : public ::testing::TestWithParam<EndpointKind> {
 protected:
  void SetUp() override {
    dir_ = MakeRunDir("test");
    if (GetParam() == EndpointKind::kTcp) keys_ = MakeCurveKeys();  // as a supervisor does
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Transport> Make(int self) {
    TransportOptions o;
    o.self = self;
    o.endpoint = GetParam();
    o.run_dir = dir_;
    o.curve = keys_;
    return MakeZmqTransport(o);
  }

  std::string dir_;
  CurveKeys keys_;
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

// Whether `socket`'s handshake with the peer `connect` connects it to fails (a monitor event),
// waiting up to 10 s for it. The monitor is attached before `connect` runs: a handshake that
// fails at once would otherwise be over, unseen, before it watches (and after a protocol error
// the socket does not reconnect, so the event would never come again).
bool HandshakeFails(zmq::socket_t& socket, const std::string& monitor_endpoint,
                    const std::function<void()>& connect) {
  struct Monitor : zmq::monitor_t {
    bool failed = false;
    void on_event_handshake_failed_no_detail(const zmq_event_t&, const char*) override {
      failed = true;
    }
    void on_event_handshake_failed_protocol(const zmq_event_t&, const char*) override {
      failed = true;
    }
    void on_event_handshake_failed_auth(const zmq_event_t&, const char*) override { failed = true; }
  } monitor;
  monitor.init(socket, monitor_endpoint, ZMQ_EVENT_ALL);
  connect();
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!monitor.failed && std::chrono::steady_clock::now() < deadline) monitor.check_event(100);
  return monitor.failed;
}

// What an attacker on the machine sends a tcp worker: a forged batch of tuples, then an
// end-of-stream and a close (which, accepted, would end the run early and lose tuples).
std::vector<std::string> ForgedFrames() {
  std::vector<std::string> frames(3);
  EncodeControlFrame(FrameKind::kEndOfStream, 0, 1, frames[1]);
  EncodeControlFrame(FrameKind::kClose, 0, 1, frames[2]);
  frames[0] = "forged tuples";
  return frames;
}

// Peers without the run's keys, in a context of their own as in another process: one with no
// CURVE at all, one that knows the server's public key but has a client key of its own, one
// with a server key of its own. Each one's handshake fails, and what it sent never reaches the
// worker socket or a task inbox: the first and only message there is a keyed peer's.
TEST(CurveTest, APeerWithoutTheRunsKeysReachesNothing) {
  const std::string dir = MakeRunDir("curve");
  const CurveKeys keys = MakeCurveKeys();
  TransportOptions o;
  o.endpoint = EndpointKind::kTcp;
  o.run_dir = dir;
  o.curve = keys;
  auto worker = MakeZmqTransport(o);
  auto inbox = worker->OpenTaskInbox(5);
  const CurveKeys other = MakeCurveKeys();
  zmq::context_t attacker_context;
  int n = 0;
  for (const std::string& target : {worker->endpoint(), inbox->endpoint()}) {
    for (int kind = 0; kind < 3; ++kind) {
      SCOPED_TRACE(fmt::format("{} attacker {}", target, kind));
      zmq::socket_t attacker(attacker_context, zmq::socket_type::push);
      attacker.set(zmq::sockopt::linger, 0);
      if (kind == 1) {
        attacker.set(zmq::sockopt::curve_serverkey, keys.server_public);
        attacker.set(zmq::sockopt::curve_publickey, other.client_public);
        attacker.set(zmq::sockopt::curve_secretkey, other.client_secret);
      } else if (kind == 2) {
        attacker.set(zmq::sockopt::curve_serverkey, other.server_public);
        attacker.set(zmq::sockopt::curve_publickey, keys.client_public);
        attacker.set(zmq::sockopt::curve_secretkey, keys.client_secret);
      }
      EXPECT_TRUE(HandshakeFails(attacker, fmt::format("inproc://attacker-{}", n++), [&] {
        attacker.connect(target);
        for (const std::string& f : ForgedFrames()) {
          (void)attacker.send(zmq::buffer(f), zmq::send_flags::dontwait);
        }
      }));
    }
  }

  o.self = 1;
  auto peer = MakeZmqTransport(o);
  peer->Connect({worker->endpoint(), peer->endpoint()});
  peer->ConnectTask(5, inbox->endpoint());
  ASSERT_TRUE(peer->Send(0, "from the run"));
  ASSERT_TRUE(peer->SendToTask(5, "to the task"));
  std::string got;
  ASSERT_TRUE(worker->Receive(got, 10s));
  EXPECT_EQ(got, "from the run");
  while (!inbox->TryReceive(got)) inbox->Wait(-1, 10'000);
  EXPECT_EQ(got, "to the task");
  EXPECT_FALSE(worker->Receive(got, 50ms));  // nothing else arrived
  EXPECT_FALSE(inbox->TryReceive(got));
  EXPECT_EQ(worker->received(), 1u);
  inbox.reset();
  std::filesystem::remove_all(dir);
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

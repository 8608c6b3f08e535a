// The ZeroMQ data plane between two workers in one process: FIFO per channel, both endpoint
// kinds, reconnecting to a restarted peer, and the private run folder.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

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
  EXPECT_NE(dir.find("/tempest-word-count-1-"), std::string::npos) << dir;
  std::filesystem::remove_all(dir);
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

// Control messages between the supervisor and its workers: exact round trips; anything else is
// a clean "malformed", never a crash.
#include "transport/control_message.h"

#include <gtest/gtest.h>

#include <functional>
#include <msgpack.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tempest::transport {
namespace {

ControlMessage Full() {
  ControlMessage m;
  m.type = ControlType::kPeers;
  m.worker = 2;
  m.pid = 123456;
  m.text = "ipc:///run/tempest-x/worker-2.sock";
  m.fingerprint = 0xfedcba9876543210ull;
  m.task = 7;
  m.completed = true;
  m.dropped_frames = 3;
  m.incarnation = 4;
  m.tasks = {
      {1, 10, 20, 30, 4, 5, 11, 600, 7, 8, 9, 10, {3, 1, 40, 2}, {}, {}, 0, {}, 0, 0, {}, {}},
      {9, UINT64_MAX, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, {}, {}, {}, 0, {}, 0, 0, {}, {}}};
  m.tasks[1].gauges = {{"state rows left", 1200}, {"state rows right", UINT64_MAX}, {"", 0}};
  m.tasks[1].last_error = "execute threw: bad row";
  m.tasks[1].last_error_ms = 1796083200123;
  m.tasks[1].execute_latency = {0, 12, 40, 3};
  m.tasks[1].queue_size = 77;
  m.tasks[1].queue_capacity = 16384;
  m.tasks[1].user_metrics = {
      {"seen", topology::MetricReading::Kind::kCounter, -3, {}},
      {"rows", topology::MetricReading::Kind::kHistogram, 1010, {0, 2, 10, 1}}};
  m.tasks[1].dropped_by_cause = {{"late", 7}, {"no_timestamp", UINT64_MAX}};
  m.endpoints = {"tcp://127.0.0.1:5000", "", "ipc:///a"};
  m.finished = {3, 8};
  return m;
}

std::string Body(const ControlMessage& m) {
  std::string bytes;
  AppendControlMessage(m, bytes);
  EXPECT_EQ(ControlBodyLength(bytes.data()), bytes.size() - kControlHeaderBytes);
  return bytes.substr(kControlHeaderBytes);
}

TEST(ControlMessageTest, EveryFieldRoundTrips) {
  const ControlMessage m = Full();
  ControlMessage out;
  std::string error;
  ASSERT_TRUE(DecodeControlMessage(Body(m), out, &error)) << error;
  EXPECT_EQ(out, m);
}

TEST(ControlMessageTest, EveryTypeRoundTrips) {
  for (int t = 1; t <= static_cast<int>(ControlType::kDeactivate); ++t) {
    ControlMessage m;
    m.type = static_cast<ControlType>(t);
    ControlMessage out;
    ASSERT_TRUE(DecodeControlMessage(Body(m), out, nullptr)) << t;
    EXPECT_EQ(out.type, m.type);
  }
}

TEST(ControlMessageTest, TruncationsAndTrailingBytesAreMalformed) {
  const std::string body = Body(Full());
  for (std::size_t n = 0; n < body.size(); ++n) {
    ControlMessage out;
    std::string error;
    EXPECT_FALSE(DecodeControlMessage(std::string_view(body).substr(0, n), out, &error)) << n;
    EXPECT_FALSE(error.empty()) << n;
  }
  ControlMessage out;
  std::string error;
  EXPECT_FALSE(DecodeControlMessage(body + "x", out, &error));
  EXPECT_EQ(error, "1 trailing bytes after the control message");
}

TEST(ControlMessageTest, AnUnknownTypeOrVersionIsNamed) {
  std::string body = Body(Full());
  ASSERT_EQ(static_cast<unsigned char>(body[2]), static_cast<unsigned>(ControlType::kPeers));
  body[2] = 99;
  ControlMessage out;
  std::string error;
  EXPECT_FALSE(DecodeControlMessage(body, out, &error));
  EXPECT_EQ(error, "unknown control message type 99");
  body = Body(Full());
  body[1] = 4;
  EXPECT_FALSE(DecodeControlMessage(body, out, &error));
  EXPECT_EQ(error, "control message version 4 with 13 parts, expected version 5 with 13");
}

// The body of a heartbeat whose one task has `gauges` packed by hand, so that it can be wrong.
std::string HeartbeatWithGauges(
    const std::function<void(msgpack::packer<msgpack::sbuffer>&)>& gauges) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_array(13);
  pk.pack_uint64(5);  // version
  pk.pack_uint8(static_cast<uint8_t>(ControlType::kHeartbeat));
  pk.pack_int32(0);   // worker
  pk.pack_int64(0);   // pid
  pk.pack_str(0);     // text
  pk.pack_uint64(0);  // fingerprint
  pk.pack_int32(0);   // task
  pk.pack_false();    // completed
  pk.pack_uint64(0);  // dropped frames
  pk.pack_int32(0);   // incarnation
  pk.pack_array(1);   // tasks
  pk.pack_array(21);
  pk.pack_int32(5);
  for (int i = 0; i < 11; ++i) pk.pack_uint64(0);
  pk.pack_array(0);  // latency
  gauges(pk);
  pk.pack_str(0);     // last error
  pk.pack_int64(0);   // its time
  pk.pack_array(0);   // execute latency
  pk.pack_uint64(0);  // queue size
  pk.pack_uint64(0);  // queue capacity
  pk.pack_array(0);   // the task's own metrics
  pk.pack_array(0);   // drops by cause
  pk.pack_array(0);   // endpoints
  pk.pack_array(0);   // finished
  return std::string(buf.data(), buf.size());
}

TEST(ControlMessageTest, HandPackedGaugesDecode) {
  const std::string body = HeartbeatWithGauges([](msgpack::packer<msgpack::sbuffer>& pk) {
    pk.pack_array(1);
    pk.pack_array(2);
    pk.pack(std::string("rows"));
    pk.pack_uint64(7);
  });
  ControlMessage out;
  std::string error;
  ASSERT_TRUE(DecodeControlMessage(body, out, &error)) << error;
  ASSERT_EQ(out.tasks.size(), 1u);
  EXPECT_EQ(out.tasks[0].task, 5);
  const std::vector<std::pair<std::string, uint64_t>> expected = {{"rows", 7}};
  EXPECT_EQ(out.tasks[0].gauges, expected);
}

TEST(ControlMessageTest, AMalformedGaugeIsNamed) {
  struct Case {
    const char* what;
    std::function<void(msgpack::packer<msgpack::sbuffer>&)> gauges;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"gauges not an array", [](auto& pk) { pk.pack_uint64(1); },
       "the gauge list is not an array"},
      {"a gauge of one part",
       [](auto& pk) {
         pk.pack_array(1);
         pk.pack_array(1);
         pk.pack(std::string("rows"));
       },
       "a gauge is not a (name, value) pair"},
      {"a gauge of three parts",
       [](auto& pk) {
         pk.pack_array(1);
         pk.pack_array(3);
         pk.pack(std::string("rows"));
         pk.pack_uint64(1);
         pk.pack_uint64(2);
       },
       "a gauge is not a (name, value) pair"},
      {"a name that is not a string",
       [](auto& pk) {
         pk.pack_array(1);
         pk.pack_array(2);
         pk.pack_uint64(3);
         pk.pack_uint64(7);
       },
       "a gauge name is not a string"},
      {"a negative value",
       [](auto& pk) {
         pk.pack_array(1);
         pk.pack_array(2);
         pk.pack(std::string("rows"));
         pk.pack_int64(-1);
       },
       "a gauge value is not an unsigned integer"},
  };
  for (const Case& c : cases) {
    ControlMessage out;
    std::string error;
    EXPECT_FALSE(DecodeControlMessage(HeartbeatWithGauges(c.gauges), out, &error)) << c.what;
    EXPECT_EQ(error, c.error) << c.what;
  }
}

TEST(ControlMessageTest, RandomGarbageIsRejected) {
  std::mt19937_64 rng(7);
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string junk(rng() % 96, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    ControlMessage out;
    accepted += DecodeControlMessage(junk, out, nullptr);
  }
  EXPECT_EQ(accepted, 0);
}

}  // namespace
}  // namespace tempest::transport

// The flags a supervisor gives its workers: round trip, and precise errors.
#include <gtest/gtest.h>

#include "../support/generator.h"
#include "bolts/null_bolt.h"
#include "runtime/process/worker.h"
#include "runtime/process/worker_plan.h"
#include "topology/topology_builder.h"

namespace tempest::runtime {
namespace {

TEST(WorkerFlagsTest, RoundTrip) {
  WorkerOptions o;
  o.index = 2;
  o.workers = 3;
  o.control_fd = 3;
  o.run_dir = "/run/x";
  o.endpoint = transport::EndpointKind::kTcp;
  o.curve = transport::MakeCurveKeys();
  o.heartbeat = std::chrono::milliseconds(250);
  o.run.queue_capacity = 99;
  o.run.batch_size = 7;
  o.run.spouts_track_trees = false;
  const WorkerOptions back = ParseWorkerFlags(WorkerFlags(o));
  EXPECT_EQ(back.index, 2);
  EXPECT_EQ(back.workers, 3);
  EXPECT_EQ(back.control_fd, 3);
  EXPECT_EQ(back.run_dir, "/run/x");
  EXPECT_EQ(back.endpoint, transport::EndpointKind::kTcp);
  EXPECT_EQ(back.curve.server_public, o.curve.server_public);
  EXPECT_EQ(back.curve.server_secret, o.curve.server_secret);
  EXPECT_EQ(back.curve.client_public, o.curve.client_public);
  EXPECT_EQ(back.curve.client_secret, o.curve.client_secret);
  EXPECT_EQ(back.heartbeat.count(), 250);
  EXPECT_EQ(back.run.queue_capacity, 99u);
  EXPECT_EQ(back.run.batch_size, 7u);
  EXPECT_FALSE(back.run.spouts_track_trees);
  o.run.spouts_track_trees = true;
  EXPECT_TRUE(ParseWorkerFlags(WorkerFlags(o)).run.spouts_track_trees);
}

TEST(WorkerFlagsTest, MistakesAreNamed) {
  const auto error = [](std::vector<std::string> flags) {
    try {
      ParseWorkerFlags(flags);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::vector<std::string> base = {"--worker-index", "0", "--workers", "2",
                                         "--control-fd",   "3", "--run-dir", "/r"};
  EXPECT_EQ(error(base), "accepted");
  std::vector<std::string> tcp = base;
  tcp.insert(tcp.end(), {"--endpoint", "tcp"});
  EXPECT_EQ(error(tcp), "a tcp worker needs the run's CURVE keys (worker flags --curve-*)");
  tcp.insert(tcp.end(), {"--curve-server-public", std::string(40, 'a')});
  EXPECT_EQ(error(tcp), "worker flags --curve-*: all four CURVE keys or none");
  tcp.insert(tcp.end(), {"--curve-client-public", "short"});
  EXPECT_EQ(error(tcp), "worker flag --curve-client-public: expected a 40-character Z85 key");
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> f = base;
    f.insert(f.end(), extra.begin(), extra.end());
    return f;
  };
  EXPECT_EQ(error({"--workers", "2"}), "worker flag --worker-index is missing");
  EXPECT_EQ(error(with({"--workers", "two"})),
            "worker flag --workers: expected an integer >= 1, found \"two\"");
  EXPECT_EQ(error(with({"--endpoint", "udp"})),
            "worker flag --endpoint: expected ipc or tcp, found \"udp\"");
  EXPECT_EQ(error(with({"--colour", "red"})), "unknown worker flag --colour");
  EXPECT_EQ(error(with({"--batch-size"})), "worker flag --batch-size has no value");
  EXPECT_EQ(error(with({"--worker-index", "2"})),
            "worker flag --worker-index 2 is not below --workers 2");
}

TEST(WorkerPlanTest, TasksAreDealtRoundRobin) {
  topology::TopologyBuilder b;
  b.SetSpout("a", testing::Generator(1), 2);
  b.SetBolt(
       "b", [] { return std::make_unique<bolts::NullBolt>(); }, 3)
      .ShuffleGrouping("a");
  const auto spec = b.Build();
  const topology::TaskLayout layout(*spec);
  const std::vector<int> worker_of = AssignTasks(layout, 2);
  EXPECT_EQ(worker_of, (std::vector<int>{0, 0, 1, 0, 1, 0}));
  EXPECT_EQ(TasksOfWorker(worker_of, 1), (std::vector<int>{2, 4}));
  EXPECT_EQ(TasksOfWorker(AssignTasks(layout, 9), 8), std::vector<int>{});
}

TEST(WorkerPlanTest, TheFingerprintChangesWithWhatWorkersMustAgreeOn) {
  const auto build = [](int parallelism, const char* stream) {
    topology::TopologyBuilder b;
    b.SetSpout("a", testing::Generator(1));
    b.SetBolt(
         "b", [] { return std::make_unique<bolts::NullBolt>(); }, parallelism)
        .FieldsGrouping("a", {stream});
    return TopologyFingerprint(*b.Build());
  };
  EXPECT_EQ(build(2, "key"), build(2, "key"));
  EXPECT_NE(build(2, "key"), build(3, "key"));
  EXPECT_NE(build(2, "key"), build(2, "id"));
}

}  // namespace
}  // namespace tempest::runtime

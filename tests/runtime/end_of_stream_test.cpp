// Bounded runs end by themselves (docs/contracts.md, "Bounded runs"): end-of-stream drains every
// task, nothing lost.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "../support/generator.h"
#include "../support/test_components.h"
#include "bolts/identity_bolt.h"
#include "runtime/local_cluster.h"
#include "topology/topology_builder.h"

namespace tempest::runtime {
namespace {

using topology::Fields;
using topology::Values;

class EndOfStreamTest : public ::testing::TestWithParam<int> {};

TEST_P(EndOfStreamTest, TuplesInEqualTuplesOut) {
  const int p = GetParam();
  constexpr uint64_t kCount = 20000;
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b("drain");
  b.SetSpout("gen", testing::Generator(kCount), p);
  b.SetBolt(
       "id",
       [] {
         return std::make_unique<bolts::IdentityBolt>(Fields{"id", "key", "ts", "payload"});
       },
       p)
      .ShuffleGrouping("gen");
  b.SetBolt(
       "sink", [recorder] { return std::make_unique<testing::RecordingBolt>(recorder); }, p)
      .FieldsGrouping("id", {"key"});
  LocalCluster cluster(b.Build(), LocalRunOptions{.queue_capacity = 1024, .batch_size = 64});
  const RunSummary s = cluster.Run();

  ASSERT_TRUE(s.completed);
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.Find("gen")->emitted, kCount);
  EXPECT_EQ(s.Find("id")->executed, kCount);
  EXPECT_EQ(s.Find("sink")->executed, kCount);
  EXPECT_EQ(s.Find("sink")->acked, kCount);
  const auto records = recorder->records();
  ASSERT_EQ(records.size(), kCount);
  std::vector<int64_t> ids;
  for (const auto& r : records) ids.push_back(r.values[0].AsInt());
  std::sort(ids.begin(), ids.end());
  for (uint64_t i = 0; i < kCount; ++i) ASSERT_EQ(ids[i], static_cast<int64_t>(i));
  // Every sink task saw end-of-stream exactly once, after all its tuples.
  const auto events = recorder->events();
  EXPECT_EQ(events.size(), static_cast<std::size_t>(p));
  EXPECT_EQ(std::set<std::string>(events.begin(), events.end()).size(),
            static_cast<std::size_t>(p));
}

INSTANTIATE_TEST_SUITE_P(Parallelism, EndOfStreamTest, ::testing::Values(1, 2, 3, 4));

TEST(EndOfStreamFlushTest, BoltsEmitHeldStateAtEndOfStreamAndItReachesTheSink) {
  // A counting bolt emits its per-task total only at end-of-stream; the sink sums the totals.
  constexpr uint64_t kCount = 9999;
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(kCount), 3);
  b.SetBolt(
       "count",
       [] {
         auto n = std::make_shared<int64_t>(0);
         return std::make_unique<testing::LambdaBolt>(
             std::map<std::string, Fields>{{"default", {"total"}}},
             [n](const topology::Tuple& t, topology::OutputCollector& out,
                 const topology::TopologyContext&) {
               ++*n;
               out.Ack(t);
             },
             [n](topology::OutputCollector& out) { out.Emit({*n}); });
       },
       3)
      .ShuffleGrouping("gen");
  b.SetBolt("sink", [recorder] {
     return std::make_unique<testing::RecordingBolt>(recorder);
   }).GlobalGrouping("count");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed);
  const auto records = recorder->records();
  ASSERT_EQ(records.size(), 3u);  // one total per count task
  int64_t sum = 0;
  for (const auto& r : records) sum += r.values[0].AsInt();
  EXPECT_EQ(sum, static_cast<int64_t>(kCount));
}

TEST(EndOfStreamFlushTest, AllGroupingCopiesEveryTupleToEveryTask) {
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(1000));
  b.SetBolt(
       "sink", [recorder] { return std::make_unique<testing::RecordingBolt>(recorder); }, 3)
      .AllGrouping("gen");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed);
  std::map<int, int> per_task;
  for (const auto& r : recorder->records()) ++per_task[r.task];
  EXPECT_EQ(per_task, (std::map<int, int>{{2, 1000}, {3, 1000}, {4, 1000}}));
}

TEST(StopTest, StopDrainsAnUnboundedTopology) {
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(0));
  b.SetBolt(
       "sink", [recorder] { return std::make_unique<testing::RecordingBolt>(recorder); }, 2)
      .ShuffleGrouping("gen");
  LocalCluster cluster(b.Build());
  cluster.Start();
  // Let some tuples reach the sink (a signal, not a sleep), then stop.
  while (cluster.Snapshot()[1].executed + cluster.Snapshot()[2].executed < 10000) {
    std::this_thread::yield();
  }
  cluster.Stop();
  const RunSummary s = cluster.Wait();
  EXPECT_TRUE(s.completed);  // drained, not cut short
  EXPECT_GE(s.Find("gen")->emitted, 10000u);
  EXPECT_EQ(s.Find("sink")->executed, s.Find("gen")->emitted);  // nothing in flight was lost
  EXPECT_EQ(recorder->records().size(), s.Find("gen")->emitted);
}

}  // namespace
}  // namespace tempest::runtime

namespace tempest::runtime {
namespace {

TEST(StopTest, ADrainLongerThanTheStopTimeoutIsCutShort) {
  // 5 ms per tuple and a full queue of 2,000: draining would take ~10 s; the timeout is 100 ms.
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(0));
  b.SetBolt("slow", [] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, Fields>{},
         [](const topology::Tuple& t, topology::OutputCollector& out,
            const topology::TopologyContext&) {
           std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the slow work itself
           out.Ack(t);
         });
   }).ShuffleGrouping("gen");
  LocalCluster cluster(b.Build(), LocalRunOptions{.queue_capacity = 2000,
                                                  .batch_size = 100,
                                                  .stop_timeout = std::chrono::milliseconds(100)});
  cluster.Start();
  while (cluster.Snapshot()[1].blocked_pushes == 0) std::this_thread::yield();  // queue is full
  cluster.Stop();
  const RunSummary s = cluster.Wait();
  EXPECT_FALSE(s.completed);
  EXPECT_EQ(s.error, "");
  EXPECT_LT(s.Find("slow")->executed, s.Find("gen")->emitted);
  // It stopped between tuples: not after the ~2,000 it had already taken from its queue.
  EXPECT_LT(s.Find("slow")->executed, 1000u);
  // Nor did the spout wait for its pending trees to time out (30 to 60 s): they cannot complete.
  EXPECT_LT(s.seconds, 20.0);
}

}  // namespace
}  // namespace tempest::runtime

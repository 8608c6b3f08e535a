// A slow bolt slows its spout: queues are bounded, producers wait, nothing is dropped.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "../support/generator.h"
#include "../support/test_components.h"
#include "runtime/local_cluster.h"
#include "topology/topology_builder.h"

namespace tempest::runtime {
namespace {

// Holds every Execute until the test opens the gate.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  void Wait() {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return open; });
  }
  void Open() {
    {
      std::lock_guard lock(mu);
      open = true;
    }
    cv.notify_all();
  }
};

// A bolt whose every Execute waits for the gate.
topology::BoltFactory GatedBolt(std::shared_ptr<Gate> gate) {
  return [gate] {
    return std::make_unique<testing::LambdaBolt>(
        std::map<std::string, topology::Fields>{},
        [gate](const topology::Tuple& t, topology::OutputCollector& out,
               const topology::TopologyContext&) {
          gate->Wait();
          out.Ack(t);
        });
  };
}

template <typename Pred>
bool Eventually(Pred pred, std::chrono::seconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(BackpressureTest, ABlockedBoltBlocksTheSpoutWithBoundedMemory) {
  constexpr std::size_t kCapacity = 1000;
  constexpr std::size_t kBatch = 50;
  auto gate = std::make_shared<Gate>();
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(0));
  b.SetBolt("slow", GatedBolt(gate)).ShuffleGrouping("gen");
  LocalCluster cluster(b.Build(),
                       LocalRunOptions{.queue_capacity = kCapacity, .batch_size = kBatch});
  cluster.Start();
  // Tasks: gen = 1, slow = 2. Wait until the bolt is stuck in its first Execute and the spout
  // has had to wait for room in the bolt's queue.
  ASSERT_TRUE(Eventually([&] {
    const auto s = cluster.Snapshot();
    return s[1].executed == 1 && s[1].blocked_pushes > 0;
  }));
  const auto blocked = cluster.Snapshot();
  // The spout is stuck: it has emitted at most what the queue, the bolt's current input and its
  // own outgoing batch hold.
  EXPECT_LE(blocked[1].queue_high_water, kCapacity + kBatch);
  EXPECT_LE(blocked[0].emitted, 2 * (kCapacity + kBatch) + kBatch);
  EXPECT_EQ(blocked[1].executed, 1u);  // the bolt is inside its first Execute

  cluster.Stop();
  gate->Open();
  const RunSummary s = cluster.Wait();
  EXPECT_TRUE(s.completed);
  EXPECT_EQ(s.Find("slow")->executed, s.Find("gen")->emitted);  // nothing dropped
  EXPECT_LE(cluster.Snapshot()[1].queue_high_water, kCapacity + kBatch);
}

// A spout held up by backpressure still expires its timeouts: trees stuck behind a blocked bolt
// fail once the message timeout has passed, not when the bolt moves again.
TEST(BackpressureTest, TimeoutsExpireWhileTheSpoutWaitsForRoom) {
  auto gate = std::make_shared<Gate>();
  topology::TopologyBuilder b;
  b.Config().message_timeout_secs = 1;  // trees time out 1 to 2 s after their emit
  b.SetSpout("gen", testing::Generator(0));
  b.SetBolt("slow", GatedBolt(gate)).ShuffleGrouping("gen");
  LocalCluster cluster(b.Build(), LocalRunOptions{.queue_capacity = 200, .batch_size = 20});
  cluster.Start();
  // Tasks: gen = 1, slow = 2, the acker = 3.
  ASSERT_TRUE(Eventually([&] {
    const auto s = cluster.Snapshot();
    return s[1].executed == 1 && s[1].blocked_pushes > 0;
  }));
  // Well past two timeouts, with the bolt still inside its first Execute, the spout has
  // expired what it sent.
  EXPECT_TRUE(
      Eventually([&] { return cluster.Snapshot()[0].timed_out > 0; }, std::chrono::seconds(20)));
  const auto blocked = cluster.Snapshot();
  EXPECT_EQ(blocked[1].executed, 1u);  // the spout has been waiting all along
  EXPECT_EQ(blocked[0].acked, 0u);
  cluster.Stop();
  gate->Open();
  const RunSummary s = cluster.Wait();
  EXPECT_TRUE(s.completed);
  const ComponentSummary& gen = *s.Find("gen");
  EXPECT_GT(gen.timed_out, 0u);
  EXPECT_GE(gen.failed, gen.timed_out);
}

// topology.executor.receive.buffer.size, when the topology sets it, is the queues' capacity
// whatever the run's default.
TEST(BackpressureTest, TheTopologysReceiveBufferSizeBoundsTheQueues) {
  constexpr int kCapacity = 500;
  constexpr std::size_t kBatch = 50;
  auto gate = std::make_shared<Gate>();
  topology::TopologyBuilder b;
  b.Config().receive_buffer_size = kCapacity;
  b.SetSpout("gen", testing::Generator(0));
  b.SetBolt("slow", GatedBolt(gate)).ShuffleGrouping("gen");
  LocalCluster cluster(b.Build(),
                       LocalRunOptions{.queue_capacity = 100 * kCapacity, .batch_size = kBatch});
  cluster.Start();
  ASSERT_TRUE(Eventually([&] {
    const auto s = cluster.Snapshot();
    return s[1].executed == 1 && s[1].blocked_pushes > 0;
  }));
  EXPECT_LE(cluster.Snapshot()[1].queue_high_water, kCapacity + kBatch);
  cluster.Stop();
  gate->Open();
  const RunSummary s = cluster.Wait();
  EXPECT_TRUE(s.completed);
  EXPECT_EQ(s.Find("slow")->executed, s.Find("gen")->emitted);
}

TEST(BackpressureTest, ASlowBoltPacesAFastSpout) {
  // No gate: the bolt is merely slower; the queue stays bounded throughout and all arrive.
  constexpr std::size_t kCapacity = 256;
  constexpr uint64_t kCount = 3000;
  topology::TopologyBuilder b;
  // Backpressure only: without acking the spout is cheap per tuple under any build (with it, and
  // an acker thread on two cores, an ASan spout can be as slow as this "slow" bolt).
  b.Config().acker_executors = 0;
  b.SetSpout("gen", testing::Generator(kCount));
  b.SetBolt("slow", [] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, topology::Fields>{},
         [](const topology::Tuple& t, topology::OutputCollector& out,
            const topology::TopologyContext&) {
           volatile uint64_t spin = 0;
           for (int i = 0; i < 200000; ++i) spin = spin + 1;  // busy work, not a sleep
           out.Ack(t);
         });
   }).ShuffleGrouping("gen");
  LocalCluster cluster(b.Build(), LocalRunOptions{.queue_capacity = kCapacity, .batch_size = 16});
  const RunSummary s = cluster.Run();
  EXPECT_TRUE(s.completed);
  EXPECT_EQ(s.Find("slow")->executed, kCount);
  const auto snap = cluster.Snapshot();
  EXPECT_LE(snap[1].queue_high_water, kCapacity + 16);
  EXPECT_GT(snap[1].blocked_pushes, 0u);
}

}  // namespace
}  // namespace tempest::runtime

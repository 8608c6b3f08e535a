// Bolts with a TickInterval get OnTick calls on their own thread, also while no input arrives.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "../support/test_components.h"
#include "runtime/local_cluster.h"
#include "topology/topology_builder.h"

namespace tempest::runtime {
namespace {

// Runs `spec` until the bolt "tick" has ticked 5 times, then stops it.
RunSummary RunUntilTicked(std::shared_ptr<const topology::TopologySpec> spec,
                          const std::atomic<int>& ticks) {
  LocalCluster cluster(std::move(spec));
  cluster.Start();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (ticks.load() < 5 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  cluster.Stop();
  return cluster.Wait();
}

TEST(TickTest, IdleBoltsStillTick) {
  auto recorder = std::make_shared<testing::Recorder>();
  auto ticks = std::make_shared<std::atomic<int>>(0);
  topology::TopologyBuilder t;
  t.SetSpout("silent", [] { return std::make_unique<testing::SilentSpout>(); });
  t.SetBolt("tick", [=] {
     return std::make_unique<testing::TickingBolt>(recorder, ticks);
   }).ShuffleGrouping("silent");
  const RunSummary s = RunUntilTicked(t.Build(), *ticks);
  EXPECT_TRUE(s.completed);
  EXPECT_GE(ticks->load(), 5);
  EXPECT_EQ(s.Find("tick")->executed, 0u);
}

// A chained bolt (topology.chaining: it runs on its upstream's thread) is still ticked by its own
// thread while its upstream has nothing to give it, and a stopped run ends without waiting for
// input that never comes.
TEST(TickTest, AChainedBoltTicksWhileItsUpstreamIsIdle) {
  auto recorder = std::make_shared<testing::Recorder>();
  auto ticks = std::make_shared<std::atomic<int>>(0);
  topology::TopologyBuilder t;
  t.Config().chaining = true;
  t.SetSpout("silent", [] { return std::make_unique<testing::SilentSpout>(); });
  t.SetBolt("pass", [] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, topology::Fields>{{"default", topology::Fields{"x"}}},
         [](const topology::Tuple& in, topology::OutputCollector& out,
            const topology::TopologyContext&) { out.Emit(in, in.GetValues()); });
   }).ShuffleGrouping("silent");
  t.SetBolt("tick", [=] {
     return std::make_unique<testing::TickingBolt>(recorder, ticks);
   }).ShuffleGrouping("pass");
  const RunSummary s = RunUntilTicked(t.Build(), *ticks);
  EXPECT_TRUE(s.completed);
  EXPECT_GE(ticks->load(), 5);
  EXPECT_EQ(s.Find("tick")->executed, 0u);
}

}  // namespace
}  // namespace tempest::runtime

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

class Ticking : public testing::RecordingBolt {
 public:
  Ticking(std::shared_ptr<testing::Recorder> r, std::shared_ptr<std::atomic<int>> ticks)
      : RecordingBolt(std::move(r)), ticks_(std::move(ticks)) {}
  std::chrono::milliseconds TickInterval() const override { return std::chrono::milliseconds(2); }
  void OnTick() override { ++*ticks_; }

 private:
  std::shared_ptr<std::atomic<int>> ticks_;
};

TEST(TickTest, IdleBoltsStillTick) {
  auto recorder = std::make_shared<testing::Recorder>();
  auto ticks = std::make_shared<std::atomic<int>>(0);
  // A spout that never ends and never emits: an empty ListSpout would end, so use a Stop().
  class Silent : public testing::ListSpout {
   public:
    Silent() : ListSpout({"x"}, {}) {}
    topology::NextResult NextTuple() override { return topology::NextResult::kIdle; }
  };
  topology::TopologyBuilder t;
  t.SetSpout("silent", [] { return std::make_unique<Silent>(); });
  t.SetBolt("tick", [=] {
     return std::make_unique<Ticking>(recorder, ticks);
   }).ShuffleGrouping("silent");
  LocalCluster cluster(t.Build());
  cluster.Start();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (ticks->load() < 5 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  cluster.Stop();
  const RunSummary s = cluster.Wait();
  EXPECT_TRUE(s.completed);
  EXPECT_GE(ticks->load(), 5);
  EXPECT_EQ(s.Find("tick")->executed, 0u);
}

}  // namespace
}  // namespace tempest::runtime

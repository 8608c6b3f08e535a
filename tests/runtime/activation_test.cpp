// Deactivate / activate (Storm's): deactivated spouts are told so and not asked for tuples until
// activated again; the rest of the run goes on, and a stop after it still drains everything.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "../support/test_components.h"
#include "runtime/local_cluster.h"
#include "topology/topology_builder.h"

namespace tempest::runtime {
namespace {

using namespace std::chrono_literals;

// What the spout saw, shared with the test: its calls, and NextTuple calls while deactivated.
struct SpoutLog {
  std::mutex mu;
  std::condition_variable cv;
  uint64_t emitted = 0;
  int activations = 0, deactivations = 0;
  bool active = false;
  uint64_t calls_while_inactive = 0;

  template <class Predicate>
  bool WaitUntil(Predicate ready, std::chrono::milliseconds timeout = 60s) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, timeout, [&] { return ready(*this); });
  }
};

class LoggingSpout : public topology::Spout {
 public:
  explicit LoggingSpout(std::shared_ptr<SpoutLog> log) : log_(std::move(log)) {}
  void Open(const topology::TopologyContext&, topology::SpoutOutputCollector& out) override {
    out_ = &out;
  }
  topology::NextResult NextTuple() override {
    uint64_t id = 0;
    {
      std::lock_guard lock(log_->mu);
      if (!log_->active) ++log_->calls_while_inactive;
      id = log_->emitted++;
    }
    log_->cv.notify_all();
    out_->Emit({static_cast<int64_t>(id)}, static_cast<int64_t>(id));
    return topology::NextResult::kEmitted;
  }
  void Activate() override { Set(true); }
  void Deactivate() override { Set(false); }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override { d.Declare({"id"}); }

 private:
  void Set(bool active) {
    {
      std::lock_guard lock(log_->mu);
      log_->active = active;
      ++(active ? log_->activations : log_->deactivations);
    }
    log_->cv.notify_all();
  }
  std::shared_ptr<SpoutLog> log_;
  topology::SpoutOutputCollector* out_ = nullptr;
};

TEST(ActivationTest, ADeactivatedSpoutIsNotAskedForTuplesUntilActivated) {
  auto log = std::make_shared<SpoutLog>();
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.Config().max_spout_pending = 1000;
  b.SetSpout("gen", [log] { return std::make_unique<LoggingSpout>(log); });
  b.SetBolt("sink", [recorder] {
     return std::make_unique<testing::RecordingBolt>(recorder);
   }).ShuffleGrouping("gen");
  LocalCluster cluster(b.Build());
  cluster.Start();
  ASSERT_TRUE(log->WaitUntil([](const SpoutLog& l) { return l.emitted >= 1000; }));
  cluster.SetActive(false);
  ASSERT_TRUE(log->WaitUntil([](const SpoutLog& l) { return l.deactivations == 1; }));
  uint64_t frozen = 0;
  {
    std::lock_guard lock(log->mu);
    frozen = log->emitted;
  }
  // Deactivated, the spout is not called at all: watched for a while, nothing moves.
  EXPECT_FALSE(log->WaitUntil([](const SpoutLog& l) { return l.calls_while_inactive > 0; }, 300ms));
  cluster.SetActive(true);
  ASSERT_TRUE(log->WaitUntil(
      [frozen](const SpoutLog& l) { return l.activations == 2 && l.emitted >= frozen + 1000; }));
  cluster.Stop();
  const RunSummary s = cluster.Wait();
  ASSERT_TRUE(s.completed) << s.error;
  std::lock_guard lock(log->mu);
  EXPECT_EQ(log->calls_while_inactive, 0u);
  EXPECT_EQ(log->activations, 2);    // at the start, then SetActive(true)
  EXPECT_EQ(log->deactivations, 2);  // SetActive(false), then the stop
  EXPECT_EQ(s.Find("gen")->emitted, log->emitted);
  EXPECT_EQ(s.Find("gen")->acked, log->emitted);
  EXPECT_EQ(recorder->records().size(), log->emitted);
}

TEST(ActivationTest, AStopWhileDeactivatedDrainsAndEnds) {
  auto log = std::make_shared<SpoutLog>();
  topology::TopologyBuilder b;
  b.SetSpout("gen", [log] { return std::make_unique<LoggingSpout>(log); });
  auto recorder = std::make_shared<testing::Recorder>();
  b.SetBolt("sink", [recorder] {
     return std::make_unique<testing::RecordingBolt>(recorder);
   }).ShuffleGrouping("gen");
  LocalCluster cluster(b.Build());
  cluster.Start();
  ASSERT_TRUE(log->WaitUntil([](const SpoutLog& l) { return l.emitted >= 100; }));
  cluster.SetActive(false);
  ASSERT_TRUE(log->WaitUntil([](const SpoutLog& l) { return l.deactivations == 1; }));
  cluster.Stop();
  const RunSummary s = cluster.Wait();
  ASSERT_TRUE(s.completed) << s.error;
  std::lock_guard lock(log->mu);
  EXPECT_EQ(log->deactivations, 1) << "a deactivated spout is not deactivated again at the stop";
  EXPECT_EQ(s.Find("gen")->acked, log->emitted);
  EXPECT_EQ(s.Find("gen")->pending, 0u);
}

}  // namespace
}  // namespace tempest::runtime

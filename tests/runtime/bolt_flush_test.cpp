// A bolt working through a large pop hands its output downstream as it goes, not only when the
// pop is done.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "../support/test_components.h"
#include "runtime/local_cluster.h"
#include "topology/topology_builder.h"

namespace tempest::runtime {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kTuples = 2000;

// Emits ids 0..count-1 in a single NextTuple call, so with a batch size above `count` they reach
// the next bolt as one envelope (one pop).
class BurstSpout : public topology::Spout {
 public:
  explicit BurstSpout(int64_t count) : count_(count) {}
  void Open(const topology::TopologyContext&, topology::SpoutOutputCollector& out) override {
    out_ = &out;
  }
  topology::NextResult NextTuple() override {
    if (done_) return topology::NextResult::kExhausted;
    for (int64_t i = 0; i < count_; ++i) out_->Emit(topology::Values{i});
    done_ = true;
    return topology::NextResult::kEmitted;
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override {
    d.Declare(topology::Fields{"n"});
  }

 private:
  int64_t count_;
  topology::SpoutOutputCollector* out_ = nullptr;
  bool done_ = false;
};

TEST(BoltFlushTest, ABoltWorkingThroughALargePopHandsItsOutputOnAsItGoes) {
  auto seen = std::make_shared<std::atomic<int64_t>>(0);
  auto stalled = std::make_shared<std::atomic<bool>>(false);
  topology::TopologyBuilder b;
  b.SetSpout("burst", [] { return std::make_unique<BurstSpout>(kTuples); });
  b.SetBolt("relay", [seen, stalled] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, topology::Fields>{{"default", topology::Fields{"n"}}},
         [seen, stalled](const topology::Tuple& t, topology::OutputCollector& out,
                         const topology::TopologyContext&) {
           // Work that takes time (not a synchronisation): 64 tuples take over a millisecond.
           const auto until = Clock::now() + std::chrono::microseconds(20);
           while (Clock::now() < until) {
           }
           out.Emit(topology::Values{t.GetInt(0)});
           out.Ack(t);
           if (t.GetInt(0) != kTuples / 2) return;
           // Half way through the one pop: the sink must have had some of the output by now.
           const auto deadline = Clock::now() + std::chrono::seconds(20);
           while (seen->load() < kTuples / 4) {
             if (Clock::now() > deadline) {
               stalled->store(true);
               return;
             }
             std::this_thread::yield();
           }
         });
   }).ShuffleGrouping("burst");
  b.SetBolt("sink", [seen] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, topology::Fields>{},
         [seen](const topology::Tuple& t, topology::OutputCollector& out,
                const topology::TopologyContext&) {
           seen->fetch_add(1);
           out.Ack(t);
         });
   }).ShuffleGrouping("relay");
  // Batches larger than the whole run: only flushes hand tuples on.
  const RunSummary s = LocalCluster(b.Build(), LocalRunOptions{.batch_size = 4096}).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_FALSE(stalled->load()) << "the relay's output waited for the end of its pop";
  EXPECT_EQ(s.Find("sink")->executed, static_cast<uint64_t>(kTuples));
}

}  // namespace
}  // namespace tempest::runtime

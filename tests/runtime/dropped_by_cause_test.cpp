// Drops by cause: a bolt's ReportDropped causes and a spout's given-up tuples ("max_retries")
// reach the run summary per component, adding up to `dropped`; a worker's counts carry over its
// restarts.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "../support/generator.h"
#include "runtime/local_cluster.h"
#include "runtime/process/run_state.h"
#include "runtime/run_summary.h"
#include "runtime/task_metrics.h"
#include "topology/bolt.h"
#include "topology/named_counts.h"
#include "topology/topology_builder.h"

namespace tempest::runtime {
namespace {

using topology::NamedCounts;

// Drops even ids as "even" and the other multiples of 3 with no cause (counted as "other");
// acks every input.
class DropSome : public topology::Bolt {
 public:
  void Prepare(const topology::TopologyContext&, topology::OutputCollector& out) override {
    out_ = &out;
  }
  void Execute(const topology::Tuple& input) override {
    const int64_t id = input.GetValue(0).AsInt();
    if (id % 2 == 0) {
      out_->ReportDropped("even");
    } else if (id % 3 == 0) {
      out_->ReportDropped();
    }
    out_->Ack(input);
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  topology::OutputCollector* out_ = nullptr;
};

class FailAll : public topology::Bolt {
 public:
  void Prepare(const topology::TopologyContext&, topology::OutputCollector& out) override {
    out_ = &out;
  }
  void Execute(const topology::Tuple& input) override { out_->Fail(input); }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  topology::OutputCollector* out_ = nullptr;
};

std::map<std::string, uint64_t> AsMap(const NamedCounts& counts) {
  return {counts.begin(), counts.end()};
}

TEST(DroppedByCauseTest, ABoltsDropsAreCountedByCauseOverItsTasks) {
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(300));
  b.SetBolt(
       "drop", [] { return std::make_unique<DropSome>(); }, 2)
      .ShuffleGrouping("gen");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  const ComponentSummary& drop = *s.Find("drop");
  EXPECT_EQ(drop.executed, 300u);
  EXPECT_EQ(drop.dropped, 200u);  // 150 even ids, 50 odd multiples of 3
  EXPECT_EQ(AsMap(drop.dropped_by_cause),
            (std::map<std::string, uint64_t>{{"even", 150}, {"other", 50}}));
  EXPECT_EQ(s.Find("gen")->dropped, 0u);
  EXPECT_TRUE(s.Find("gen")->dropped_by_cause.empty());
}

TEST(DroppedByCauseTest, TuplesASpoutGivesUpAreCountedAsMaxRetries) {
  topology::TopologyBuilder b;
  b.Config().max_spout_retries = 2;
  b.Config().spout_retry_delay_ms = 1;
  b.SetSpout("gen", testing::Generator(20));
  b.SetBolt("fail", [] { return std::make_unique<FailAll>(); }).ShuffleGrouping("gen");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(s.Find("gen")->dropped, 20u);
  EXPECT_EQ(s.Find("gen")->dropped_by_cause, (NamedCounts{{"max_retries", 20}}));
  EXPECT_EQ(s.Find("gen")->failed, 60u);  // each id: the first try and 2 replays
}

// The causes live in a fixed table (counted without a lock): past 15 distinct causes, new ones
// count as "other", and nothing is lost from the total.
TEST(DroppedByCauseTest, PastTheTableNewCausesCountAsOther) {
  TaskMetrics m;
  for (int i = 0; i < 20; ++i) m.AddDropped("cause " + std::to_string(i), 2);
  m.AddDropped("cause 3", 1);
  const NamedCounts causes = m.DroppedByCause();
  ASSERT_EQ(causes.size(), TaskMetrics::kMaxDropCauses);
  EXPECT_EQ(causes[3], (std::pair<std::string, uint64_t>{"cause 3", 3}));
  EXPECT_EQ(causes[14].first, "cause 14");
  EXPECT_EQ(causes.back(), (std::pair<std::string, uint64_t>{"other", 10}));  // causes 15-19
  EXPECT_EQ(m.dropped.load(), 41u);
}

// A restarted worker counts from 0 again: its drops add to the dead incarnation's, by cause.
TEST(DroppedByCauseTest, DropsByCauseAddUpOverAWorkersIncarnations) {
  transport::ControlMessage first;
  first.tasks.resize(1);
  first.tasks[0].task = 3;
  first.tasks[0].dropped = 5;
  first.tasks[0].dropped_by_cause = {{"late", 4}, {"no_timestamp", 1}};
  transport::ControlMessage second = first;
  second.tasks[0].dropped = 2;
  second.tasks[0].dropped_by_cause = {{"unknown_stream", 1}, {"late", 1}};

  WorkerCounters counters;
  counters.Update(first);
  counters.CarryOver();
  counters.Update(second);
  const transport::TaskCounters c = counters.Of(3);
  EXPECT_EQ(c.dropped, 7u);
  EXPECT_EQ(c.dropped_by_cause,
            (NamedCounts{{"late", 5}, {"no_timestamp", 1}, {"unknown_stream", 1}}));
  EXPECT_EQ(SnapshotOf(c, "join", false).dropped_by_cause, c.dropped_by_cause);
}

}  // namespace
}  // namespace tempest::runtime

// Named gauges a bolt reports (ReportGauge) reach the run summary, summed over the component's
// tasks by name, in first-reported order.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "../support/generator.h"
#include "runtime/local_cluster.h"
#include "runtime/run_summary.h"
#include "topology/bolt.h"
#include "topology/topology_builder.h"

namespace tempest::runtime {
namespace {

using Gauges = std::vector<std::pair<std::string, uint64_t>>;

// Counts its inputs; reports the count at end-of-stream, after a placeholder set in Prepare (a
// gauge set again keeps its place and takes the new value).
class CountingBolt : public topology::Bolt {
 public:
  void Prepare(const topology::TopologyContext&, topology::OutputCollector& out) override {
    out_ = &out;
    out.ReportGauge("rows", 0);
    out.ReportGauge("tasks", 1);
  }
  void Execute(const topology::Tuple& input) override {
    ++rows_;
    out_->Ack(input);
  }
  void OnEndOfStream() override { out_->ReportGauge("rows", rows_); }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  topology::OutputCollector* out_ = nullptr;
  uint64_t rows_ = 0;
};

TEST(GaugesTest, SummarizeSumsGaugesByNameInFirstSeenOrder) {
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(1));
  b.SetBolt(
       "join", [] { return std::make_unique<CountingBolt>(); }, 2)
      .ShuffleGrouping("gen");
  const auto spec = b.Build();
  const topology::TaskLayout layout(*spec);
  const std::vector<int>& join_tasks = layout.TasksOf("join");
  ASSERT_EQ(join_tasks.size(), 2u);
  std::vector<TaskSnapshot> tasks(3);
  tasks[0].task = layout.TasksOf("gen").at(0);
  tasks[0].component = "gen";
  tasks[1].task = join_tasks[0];
  tasks[1].component = "join";
  tasks[1].gauges = {{"state rows left", 1000}, {"state rows right", 300}};
  tasks[2].task = join_tasks[1];
  tasks[2].component = "join";
  tasks[2].gauges = {{"state rows peak", 7}, {"state rows left", 200}};

  const RunSummary s = Summarize(*spec, layout, tasks);
  EXPECT_TRUE(s.Find("gen")->gauges.empty());
  const Gauges expected = {
      {"state rows left", 1200}, {"state rows right", 300}, {"state rows peak", 7}};
  EXPECT_EQ(s.Find("join")->gauges, expected);
}

TEST(GaugesTest, ABoltsEndOfStreamGaugesAreInTheRunSummary) {
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(1000));
  b.SetBolt(
       "count", [] { return std::make_unique<CountingBolt>(); }, 3)
      .ShuffleGrouping("gen");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(s.Find("count")->executed, 1000u);
  const Gauges expected = {{"rows", 1000}, {"tasks", 3}};
  EXPECT_EQ(s.Find("count")->gauges, expected);
  EXPECT_TRUE(s.Find("gen")->gauges.empty());
}

}  // namespace
}  // namespace tempest::runtime

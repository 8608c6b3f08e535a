// Several output streams per component, direct streams, and what a task knows of itself.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "../support/generator.h"
#include "../support/test_components.h"
#include "runtime/local_cluster.h"
#include "topology/topology_builder.h"

namespace tempest::runtime {
namespace {

using topology::Fields;
using topology::OutputCollector;
using topology::TopologyContext;
using topology::Tuple;

TEST(StreamsTest, EachStreamReachesOnlyItsSubscribers) {
  auto evens = std::make_shared<testing::Recorder>();
  auto odds = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(100));
  b.SetBolt(
       "split",
       [] {
         return std::make_unique<testing::LambdaBolt>(
             std::map<std::string, Fields>{{"even", {"n"}}, {"odd", {"n", "half"}}},
             [](const Tuple& t, OutputCollector& out, const TopologyContext&) {
               const int64_t n = t.GetInt(0);
               if (n % 2 == 0) {
                 out.Emit("even", t, {n});
               } else {
                 out.Emit("odd", t, {n, n / 2});
               }
               out.Ack(t);
             });
       },
       2)
      .ShuffleGrouping("gen");
  b.SetBolt("evens", [evens] {
     return std::make_unique<testing::RecordingBolt>(evens);
   }).ShuffleGrouping("split", "even");
  b.SetBolt(
       "odds", [odds] { return std::make_unique<testing::RecordingBolt>(odds); }, 2)
      .FieldsGrouping("split", "odd", {"half"});
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed);
  ASSERT_EQ(evens->records().size(), 50u);
  ASSERT_EQ(odds->records().size(), 50u);
  for (const auto& r : evens->records()) {
    EXPECT_EQ(r.stream, "even");
    EXPECT_EQ(r.values[0].AsInt() % 2, 0);
  }
  for (const auto& r : odds->records()) {
    EXPECT_EQ(r.stream, "odd");
    EXPECT_EQ(r.values.size(), 2u);
    EXPECT_EQ(r.values[0].AsInt() % 2, 1);
  }
}

TEST(StreamsTest, EmitDirectSendsToTheChosenTask) {
  // "router" sends tuple n to the (n % 3)-th task of "sink" over a direct stream.
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(300));
  b.SetBolt("router", [] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, Fields>{{"default", {"n"}}},
         [](const Tuple& t, OutputCollector& out, const TopologyContext& context) {
           const std::vector<int>& sinks = context.GetComponentTasks("sink");
           out.EmitDirect(sinks[t.GetInt(0) % 3], t, {t.GetInt(0)});
           out.Ack(t);
         },
         std::function<void(OutputCollector&)>{}, /*direct=*/true);
   }).ShuffleGrouping("gen");
  b.SetBolt(
       "sink", [recorder] { return std::make_unique<testing::RecordingBolt>(recorder); }, 3)
      .DirectGrouping("router");
  const auto spec = b.Build();
  const topology::TaskLayout layout(*spec);
  const RunSummary s = LocalCluster(spec).Run();
  ASSERT_TRUE(s.completed);
  EXPECT_EQ(s.Find("router")->errors, 0u);
  ASSERT_EQ(recorder->records().size(), 300u);
  for (const auto& r : recorder->records()) {
    EXPECT_EQ(r.task, layout.TasksOf("sink")[r.values[0].AsInt() % 3]);
  }
}

TEST(StreamsTest, DirectMisuseIsReportedWithStormsMessages) {
  // Emit on a direct stream, and EmitDirect to a regular subscriber, are errors; the tuples fail.
  auto direct_sink = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.Config().acker_executors = 0;  // failures only counted: a replay would fail again
  b.SetSpout("gen", testing::Generator(10));
  b.SetBolt("router", [] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, Fields>{{"direct", {"n"}}},
         [](const Tuple& t, OutputCollector& out, const TopologyContext&) {
           out.Emit("direct", {t.GetInt(0)});  // must be EmitDirect
         },
         std::function<void(OutputCollector&)>{}, /*direct=*/true);
   }).ShuffleGrouping("gen");
  b.SetBolt("regular", [] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, Fields>{{"default", {"n"}}},
         [](const Tuple& t, OutputCollector& out, const TopologyContext& context) {
           out.EmitDirect(context.GetComponentTasks("sink")[0], t, {t.GetInt(0)});
         });
   }).ShuffleGrouping("gen");
  b.SetBolt("sink", [direct_sink] { return std::make_unique<testing::RecordingBolt>(direct_sink); })
      .DirectGrouping("router", "direct")
      .ShuffleGrouping("regular");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed);
  EXPECT_EQ(s.Find("router")->errors, 10u);
  EXPECT_EQ(s.Find("router")->failed, 10u);
  EXPECT_EQ(s.Find("regular")->errors, 10u);
  EXPECT_EQ(s.Find("sink")->executed, 0u);
}

TEST(StreamsTest, ContextTellsTaskIdsAndIndices) {
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(40));
  b.SetBolt(
       "who",
       [] {
         return std::make_unique<testing::LambdaBolt>(
             std::map<std::string, Fields>{{"default", {"task", "index", "component", "peers"}}},
             [](const Tuple& t, OutputCollector& out, const TopologyContext& c) {
               out.Emit(t, {c.GetThisTaskId(), c.GetThisTaskIndex(), c.GetThisComponentId(),
                            static_cast<int64_t>(c.GetThisComponentTasks().size())});
               out.Ack(t);
             });
       },
       4)
      .ShuffleGrouping("gen");
  b.SetBolt("sink", [recorder] {
     return std::make_unique<testing::RecordingBolt>(recorder);
   }).GlobalGrouping("who");
  ASSERT_TRUE(LocalCluster(b.Build()).Run().completed);
  // Sorted ids: gen = 1, sink = 2, who = 3..6.
  std::set<std::pair<int64_t, int64_t>> seen;
  for (const auto& r : recorder->records()) {
    EXPECT_EQ(r.values[2].AsString(), "who");
    EXPECT_EQ(r.values[3].AsInt(), 4);
    seen.insert({r.values[0].AsInt(), r.values[1].AsInt()});
  }
  EXPECT_EQ(seen, (std::set<std::pair<int64_t, int64_t>>{{3, 0}, {4, 1}, {5, 2}, {6, 3}}));
}

}  // namespace
}  // namespace tempest::runtime

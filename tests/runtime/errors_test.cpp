// User code that throws fails its tuple and is logged; the run, and the process, go on.
#include <gtest/gtest.h>

#include "../support/generator.h"
#include "../support/test_components.h"
#include "runtime/local_cluster.h"
#include "topology/basic_bolt.h"
#include "topology/topology_builder.h"

// These tests count failures; the same input fails every time, so replaying it would never end.
// Replay is tested in tests/runtime/acking_test.cpp.
namespace tempest::runtime {
namespace {

using topology::Fields;
using topology::OutputCollector;
using topology::TopologyContext;
using topology::Tuple;

TEST(ErrorsTest, AThrowingBoltFailsThatTupleAndKeepsGoing) {
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.Config().acker_executors = 0;
  b.SetSpout("gen", testing::Generator(1000));
  b.SetBolt(
       "picky",
       [] {
         return std::make_unique<testing::LambdaBolt>(
             std::map<std::string, Fields>{{"default", {"id"}}},
             [](const Tuple& t, OutputCollector& out, const TopologyContext&) {
               if (t.GetInt(0) % 10 == 0)
                 throw std::runtime_error("ids ending in 0 are not welcome");
               out.Emit(t, {t.GetInt(0)});
               out.Ack(t);
             });
       },
       2)
      .ShuffleGrouping("gen");
  b.SetBolt("sink", [recorder] {
     return std::make_unique<testing::RecordingBolt>(recorder);
   }).ShuffleGrouping("picky");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed);
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.Find("picky")->executed, 1000u);
  EXPECT_EQ(s.Find("picky")->errors, 100u);
  EXPECT_EQ(s.Find("picky")->failed, 100u);
  EXPECT_EQ(s.Find("picky")->acked, 900u);
  EXPECT_EQ(recorder->records().size(), 900u);
  for (const auto& r : recorder->records()) EXPECT_NE(r.values[0].AsInt() % 10, 0);
}

class SometimesFails : public topology::BasicBolt {
 public:
  void Execute(const Tuple& t, topology::BasicOutputCollector& out) override {
    if (t.GetInt(0) % 4 == 0) throw topology::FailedException("not now");
    out.Emit({t.GetInt(0)});
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override { d.Declare({"id"}); }
};

TEST(ErrorsTest, BasicBoltFailedExceptionFailsWithoutCountingAnError) {
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.Config().acker_executors = 0;
  b.SetSpout("gen", testing::Generator(400));
  b.SetBolt(
       "basic", [] { return std::make_unique<SometimesFails>(); }, 2)
      .ShuffleGrouping("gen");
  b.SetBolt("sink", [recorder] {
     return std::make_unique<testing::RecordingBolt>(recorder);
   }).ShuffleGrouping("basic");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed);
  EXPECT_EQ(s.Find("basic")->failed, 100u);
  EXPECT_EQ(s.Find("basic")->acked, 300u);
  EXPECT_EQ(s.Find("basic")->errors, 0u);
  EXPECT_EQ(recorder->records().size(), 300u);
}

TEST(ErrorsTest, MisusedEmitsAreErrorsNotCrashes) {
  topology::TopologyBuilder b;
  b.Config().acker_executors = 0;
  b.SetSpout("gen", testing::Generator(30));
  b.SetBolt("clumsy", [] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, Fields>{{"default", {"a", "b"}}},
         [](const Tuple& t, OutputCollector& out, const TopologyContext&) {
           switch (t.GetInt(0) % 3) {
             case 0:
               out.Emit("nowhere", {1, 2});  // undeclared stream
               break;
             case 1:
               out.Emit({1});  // wrong number of fields
               break;
             default:
               out.Emit({1, 2});
               out.Ack(t);
           }
         });
   }).ShuffleGrouping("gen");
  b.SetBolt("sink", [] {
     return std::make_unique<testing::RecordingBolt>(std::make_shared<testing::Recorder>());
   }).ShuffleGrouping("clumsy");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed);
  EXPECT_EQ(s.Find("clumsy")->errors, 20u);
  EXPECT_EQ(s.Find("clumsy")->failed, 20u);
  EXPECT_EQ(s.Find("sink")->executed, 10u);
}

class FailingPrepare : public topology::Bolt {
 public:
  void Prepare(const TopologyContext&, OutputCollector&) override {
    throw std::runtime_error("database unreachable");
  }
  void Execute(const Tuple&) override {}
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}
};

TEST(ErrorsTest, AFailingPrepareEndsTheRunWithAPreciseError) {
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(0));
  b.SetBolt(
       "db", [] { return std::make_unique<FailingPrepare>(); }, 2)
      .ShuffleGrouping("gen");
  const RunSummary s = LocalCluster(b.Build()).Run();
  EXPECT_FALSE(s.completed);
  EXPECT_TRUE(s.error == "bolt 'db' task 1 failed to prepare: database unreachable" ||
              s.error == "bolt 'db' task 2 failed to prepare: database unreachable")
      << s.error;
}

class FailingOpen : public testing::ListSpout {
 public:
  FailingOpen() : ListSpout({"x"}, {}) {}
  void Open(const TopologyContext&, topology::SpoutOutputCollector&) override {
    throw std::runtime_error("no such file");
  }
};

TEST(ErrorsTest, AFailingOpenEndsTheRunWithAPreciseError) {
  topology::TopologyBuilder b;
  b.SetSpout("src", [] { return std::make_unique<FailingOpen>(); });
  b.SetBolt("sink", [] {
     return std::make_unique<testing::RecordingBolt>(std::make_shared<testing::Recorder>());
   }).ShuffleGrouping("src");
  const RunSummary s = LocalCluster(b.Build()).Run();
  EXPECT_FALSE(s.completed);
  EXPECT_EQ(s.error, "spout 'src' task 2 failed to open: no such file");
}

}  // namespace
}  // namespace tempest::runtime

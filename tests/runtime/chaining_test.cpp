// topology.chaining: a bolt task whose only input is one bolt task of the same process runs on
// that task's thread, and behaves exactly as it would on its own: every tuple in order, its
// end-of-stream and close after them, its acks, its errors (its ticks: tick_test.cpp).
#include "runtime/queues/chaining.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../support/test_components.h"
#include "runtime/local_cluster.h"
#include "spouts/generator_spout.h"
#include "topology/task_layout.h"
#include "topology/topology_builder.h"

namespace tempest::runtime {
namespace {

using topology::Fields;
using topology::OutputCollector;
using topology::TopologyContext;
using topology::Tuple;
using topology::Values;

// The thread names each component's Execute ran on.
struct Threads {
  std::mutex mu;
  std::map<std::string, std::set<std::string>> of;
  void Add(const std::string& component) {
    std::lock_guard lock(mu);
    of[component].insert(testing::ThisThreadName());
  }
};

std::vector<Values> Rows(int n) {
  std::vector<Values> rows;
  for (int i = 0; i < n; ++i) rows.push_back({int64_t{i}});
  return rows;
}

// Emits x and x + 1000 for each input x, anchored to it, and acks it.
topology::BoltFactory Doubler(std::shared_ptr<Threads> threads) {
  return [threads] {
    return std::make_unique<testing::LambdaBolt>(
        std::map<std::string, Fields>{{"default", Fields{"x"}}},
        [threads](const Tuple& t, OutputCollector& out, const TopologyContext&) {
          threads->Add("double");
          const int64_t x = t.GetValues()[0].AsInt();  // ListSpout's x, GeneratorSpout's id
          out.Emit(t, Values{x});
          out.Emit(t, Values{x + 1000});
          out.Ack(t);
        });
  };
}

// Records each input with the thread it ran on, acks it; at end-of-stream emits how many it saw.
topology::BoltFactory Counter(std::shared_ptr<testing::Recorder> recorder,
                              std::shared_ptr<Threads> threads) {
  return [recorder, threads] {
    auto seen = std::make_shared<int64_t>(0);
    return std::make_unique<testing::LambdaBolt>(
        std::map<std::string, Fields>{{"default", Fields{"count"}}},
        [recorder, threads, seen](const Tuple& t, OutputCollector& out,
                                  const TopologyContext& context) {
          threads->Add("count");
          recorder->Add(context.GetThisTaskId(), t);
          ++*seen;
          out.Ack(t);
        },
        [seen](OutputCollector& out) { out.Emit(Values{*seen}); });
  };
}

// numbers -> double -> count -> total: with chaining, count runs on double's thread; total (fed
// by a chained task) and double (fed by a spout) run on their own.
std::shared_ptr<const topology::TopologySpec> Pipeline(int n, bool chaining, int ackers,
                                                       std::shared_ptr<testing::Recorder> counted,
                                                       std::shared_ptr<testing::Recorder> totals,
                                                       std::shared_ptr<Threads> threads) {
  topology::TopologyBuilder b("chained");
  b.Config().chaining = chaining;
  b.Config().acker_executors = ackers;
  b.SetSpout("numbers", [n] { return std::make_unique<testing::ListSpout>(Fields{"x"}, Rows(n)); });
  b.SetBolt("double", Doubler(threads)).ShuffleGrouping("numbers");
  b.SetBolt("count", Counter(counted, threads)).ShuffleGrouping("double");
  b.SetBolt("total", [totals] {
     return std::make_unique<testing::RecordingBolt>(totals);
   }).ShuffleGrouping("count");
  return b.Build();
}

TEST(ChainingTest, OnlyABoltFedByOneBoltTaskOfThisProcessIsChained) {
  topology::TopologyBuilder b("who");
  b.Config().chaining = true;
  b.SetSpout("numbers", [] { return std::make_unique<testing::ListSpout>(Fields{"x"}, Rows(1)); });
  b.SetBolt("double", Doubler(std::make_shared<Threads>())).ShuffleGrouping("numbers");
  // Fed by double's one task: chained, with parallelism 2 too (each task hears only double).
  b.SetBolt("count", Counter(nullptr, nullptr), 2).ShuffleGrouping("double");
  // Fed by a chained task: not chained (chains are one link long).
  b.SetBolt("total", [] {
     return std::make_unique<testing::RecordingBolt>(nullptr);
   }).GlobalGrouping("count");
  // Fed by two components: not chained.
  b.SetBolt("both", [] { return std::make_unique<testing::RecordingBolt>(nullptr); })
      .ShuffleGrouping("double")
      .ShuffleGrouping("numbers");
  const auto spec = b.Build();
  const topology::TaskLayout layout(*spec, 1);
  std::vector<int> all;
  for (int t = 1; t <= layout.task_count(); ++t) all.push_back(t);
  const int dbl = layout.TasksOf("double").front();

  std::vector<int> expected(all.size() + 1, 0);
  for (int t : layout.TasksOf("count")) expected[t] = dbl;
  EXPECT_EQ(ChainedUpstreams(*spec, layout, all), expected);

  // A task whose upstream runs in another process stays on its own thread.
  std::vector<int> without_double;
  for (int t : all) {
    if (t != dbl) without_double.push_back(t);
  }
  EXPECT_EQ(ChainedUpstreams(*spec, layout, without_double), std::vector<int>(all.size() + 1, 0));

  // Chaining off (the default): nothing is chained.
  auto off = std::make_shared<topology::TopologySpec>(*spec);
  off->config.chaining = false;
  EXPECT_EQ(ChainedUpstreams(*off, layout, all), std::vector<int>(all.size() + 1, 0));
}

// The same run with chaining off and on: the same tuples in the same order, the end-of-stream
// output after them, every spout tuple acked; only the thread count's Execute runs on differs.
TEST(ChainingTest, AChainedBoltGetsEveryTupleInOrderOnItsUpstreamsThread) {
  constexpr int kN = 5000;  // many batches, and a partial last one
  for (const bool chaining : {false, true}) {
    SCOPED_TRACE(chaining ? "chaining on" : "chaining off");
    auto counted = std::make_shared<testing::Recorder>();
    auto totals = std::make_shared<testing::Recorder>();
    auto threads = std::make_shared<Threads>();
    const RunSummary s = LocalCluster(Pipeline(kN, chaining, 1, counted, totals, threads)).Run();
    ASSERT_TRUE(s.completed);

    const std::vector<testing::Recorder::Record> records = counted->records();
    ASSERT_EQ(records.size(), 2u * kN);
    for (int i = 0; i < kN; ++i) {
      ASSERT_EQ(records[2 * i].values, (Values{int64_t{i}})) << i;
      ASSERT_EQ(records[2 * i + 1].values, (Values{int64_t{i + 1000}})) << i;
    }
    const std::vector<testing::Recorder::Record> total = totals->records();
    ASSERT_EQ(total.size(), 1u);
    EXPECT_EQ(total[0].values, (Values{int64_t{2 * kN}}));
    EXPECT_EQ(totals->events().size(), 1u);  // total's end-of-stream, once

    EXPECT_EQ(s.Find("numbers")->acked, static_cast<uint64_t>(kN));
    EXPECT_EQ(s.Find("numbers")->failed, 0u);
    EXPECT_EQ(s.Find("count")->executed, 2u * kN);
    EXPECT_EQ(s.Find("count")->acked, 2u * kN);
    EXPECT_EQ(s.Find("count")->emitted, 1u);
    EXPECT_EQ(s.Find("total")->executed, 1u);

    ASSERT_EQ(threads->of["double"].size(), 1u);
    ASSERT_EQ(threads->of["count"].size(), 1u);
    if (chaining) {
      EXPECT_EQ(threads->of["count"], threads->of["double"]);
    } else {
      EXPECT_NE(threads->of["count"], threads->of["double"]);
    }
  }
}

// A chained bolt that throws: the error is counted against it, its input failed and replayed,
// and the run goes on.
TEST(ChainingTest, AChainedBoltsExceptionFailsItsInputAndTheRunGoesOn) {
  auto counted = std::make_shared<testing::Recorder>();
  auto thrown = std::make_shared<std::atomic<bool>>(false);
  topology::TopologyBuilder b("chained-throws");
  b.Config().chaining = true;
  b.Config().acker_executors = 1;
  // GeneratorSpout replays what fails; its rows start with the id.
  b.SetSpout("numbers", [] {
    spouts::GeneratorSpoutConfig config;
    config.count = 10;
    return std::make_unique<spouts::GeneratorSpout>(config);
  });
  b.SetBolt("double", Doubler(std::make_shared<Threads>())).ShuffleGrouping("numbers");
  b.SetBolt("picky", [counted, thrown] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, Fields>{},
         [counted, thrown](const Tuple& t, OutputCollector& out, const TopologyContext& c) {
           // The first copy of 1003 throws once; its replay passes.
           if (t.GetValues()[0].AsInt() == 1003 && !thrown->exchange(true)) {
             throw std::runtime_error("no 1003 today");
           }
           counted->Add(c.GetThisTaskId(), t);
           out.Ack(t);
         });
   }).ShuffleGrouping("double");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed);
  EXPECT_EQ(s.Find("picky")->errors, 1u);
  EXPECT_EQ(s.Find("picky")->failed, 1u);
  EXPECT_EQ(s.Find("numbers")->failed, 1u);
  EXPECT_EQ(s.Find("numbers")->replayed, 1u);
  EXPECT_EQ(s.Find("numbers")->acked, 10u);
  // 20 rows, plus the replayed 3's two copies (3 arrives twice; 1003 once).
  std::multiset<int64_t> seen;
  for (const auto& r : counted->records()) seen.insert(r.values[0].AsInt());
  std::multiset<int64_t> expected;
  for (int64_t i = 0; i < 10; ++i) {
    expected.insert(i);
    expected.insert(i + 1000);
  }
  expected.insert(3);
  EXPECT_EQ(seen, expected);
}

// A run stopped while tuples flow through a chain ends cleanly (the chained bolt is cleaned up
// on its own thread only once its upstream has stopped delivering).
TEST(ChainingTest, StoppingARunMidStreamEndsTheChainCleanly) {
  class Endless : public topology::Spout {
   public:
    void Open(const TopologyContext&, topology::SpoutOutputCollector& out) override { out_ = &out; }
    topology::NextResult NextTuple() override {
      out_->Emit(Values{next_++});
      return topology::NextResult::kEmitted;
    }
    void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override {
      d.Declare(Fields{"x"});
    }

   private:
    topology::SpoutOutputCollector* out_ = nullptr;
    int64_t next_ = 0;
  };
  auto executed = std::make_shared<std::atomic<uint64_t>>(0);
  topology::TopologyBuilder b("chained-stop");
  b.Config().chaining = true;
  b.Config().acker_executors = 0;
  b.SetSpout("endless", [] { return std::make_unique<Endless>(); });
  b.SetBolt("double", Doubler(std::make_shared<Threads>())).ShuffleGrouping("endless");
  b.SetBolt("sink", [executed] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, Fields>{},
         [executed](const Tuple&, OutputCollector&, const TopologyContext&) { ++*executed; });
   }).ShuffleGrouping("double");
  LocalCluster cluster(b.Build());
  cluster.Start();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (executed->load() < 100'000 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  cluster.Stop();
  const RunSummary s = cluster.Wait();
  EXPECT_TRUE(s.completed);
  EXPECT_GE(s.Find("sink")->executed, 100'000u);
  EXPECT_EQ(s.Find("sink")->executed, executed->load());
}

}  // namespace
}  // namespace tempest::runtime

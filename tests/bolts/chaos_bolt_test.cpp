// ChaosBolt (docs/contracts.md, "Values and files"): seeded, reproducible fails and throws;
// everything else forwarded unchanged and anchored. The expected outcomes are recomputed here from
// the documented rule.
#include "bolts/chaos_bolt.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>
#include <set>

#include "../support/builtin_test_support.h"
#include "../support/test_components.h"
#include "runtime/local_cluster.h"
#include "spouts/generator_spout.h"
#include "topology/topology_builder.h"

namespace tempest::bolts {
namespace {

using testing::BoltContext;
using testing::FakeBoltCollector;
using topology::Fields;
using topology::StreamSchema;
using topology::Tuple;
using topology::Values;

enum class Outcome { kForward, kFail, kThrow };

// The documented rule, written independently of the bolt.
std::vector<Outcome> ExpectedOutcomes(const ChaosBoltConfig& c, int task_index, int n) {
  std::mt19937_64 rng(c.seed ^ static_cast<uint64_t>(task_index));
  std::vector<Outcome> out;
  for (int i = 0; i < n; ++i) {
    const double u = std::ldexp(static_cast<double>(rng() >> 11), -53);
    out.push_back(u < c.fail_fraction                      ? Outcome::kFail
                  : u < c.fail_fraction + c.throw_fraction ? Outcome::kThrow
                                                           : Outcome::kForward);
  }
  return out;
}

std::string ValidationError(const ChaosBoltConfig& c) {
  try {
    ValidateChaosBoltConfig(c);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(valid)";
}

TEST(ChaosBoltConfigTest, Validation) {
  EXPECT_EQ(ValidationError({}), "(valid)");
  EXPECT_EQ(ValidationError({.fail_fraction = 0.7, .throw_fraction = 0.3}), "(valid)");
  EXPECT_EQ(ValidationError({.fail_fraction = 1}), "(valid)");
  EXPECT_EQ(ValidationError({.fail_fraction = -0.1}),
            "`fail_fraction` must be within [0, 1], not -0.1");
  EXPECT_EQ(ValidationError({.throw_fraction = 1.5}),
            "`throw_fraction` must be within [0, 1], not 1.5");
  EXPECT_EQ(ValidationError({.fail_fraction = std::nan("")}),
            "`fail_fraction` must be within [0, 1], not nan");
  EXPECT_EQ(ValidationError({.fail_fraction = 0.6, .throw_fraction = 0.5}),
            "`fail_fraction` + `throw_fraction` must be at most 1, not 0.6 + 0.5");
  EXPECT_EQ(ValidationError({.delay_ms = -1}), "`delay_ms` must be 0 or more milliseconds, not -1");
  EXPECT_EQ(ValidationError({.exit_after = -1}),
            "`exit_after` must be 0 (never) or more tuples, not -1");
  EXPECT_THROW(ChaosBolt({.fail_fraction = 2}, Fields{"a"}), std::invalid_argument);
}

// exit_after simulates a worker crash; in a one-process run there is no supervisor to restart
// anything, so it is ignored (this test process would end otherwise). The multi-process path is
// tested in tests/integration/crash_recovery_test.cpp.
TEST(ChaosBoltTest, ExitAfterIsIgnoredOutsideWorkerProcesses) {
  ChaosBolt bolt({.exit_after = 3}, Fields{"i"});
  FakeBoltCollector out;
  bolt.Prepare(BoltContext(), out);
  StreamSchema schema;
  schema.fields = std::make_shared<const Fields>(Fields{"i"});
  for (int i = 0; i < 10; ++i) bolt.Execute(Tuple(&schema, 1, Values{i}));
  EXPECT_EQ(out.acked.size(), 10u);
}

TEST(ChaosBoltTest, WithoutFaultsItIsAnIdentityBolt) {
  ChaosBolt bolt({}, Fields{"a", "b"});
  topology::OutputFieldsDeclarer d("chaos");
  bolt.DeclareOutputFields(d);
  const auto streams = d.TakeStreams();
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_EQ(streams[0]->stream, "default");
  EXPECT_EQ(*streams[0]->fields, (Fields{"a", "b"}));

  FakeBoltCollector out;
  bolt.Prepare(BoltContext(), out);
  StreamSchema schema;
  schema.fields = std::make_shared<const Fields>(Fields{"a", "b"});
  std::vector<Tuple> inputs;
  for (int i = 0; i < 100; ++i) inputs.emplace_back(&schema, 1, Values{i, "x"});
  for (const Tuple& t : inputs) bolt.Execute(t);
  ASSERT_EQ(out.emitted.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(out.emitted[i].stream, "default");
    EXPECT_EQ(out.emitted[i].values, (Values{i, "x"}));
    EXPECT_EQ(out.emitted[i].anchors, (std::vector<const Tuple*>{&inputs[i]}));
  }
  EXPECT_EQ(out.acked.size(), 100u);
  EXPECT_TRUE(out.failed.empty());
}

TEST(ChaosBoltTest, FailsAndThrowsExactlyAsTheSeedDecides) {
  for (const int task : {0, 1}) {
    const ChaosBoltConfig config{.fail_fraction = 0.2, .throw_fraction = 0.1, .seed = 42};
    ChaosBolt bolt(config, Fields{"i"});
    FakeBoltCollector out;
    bolt.Prepare(BoltContext(2, task), out);
    StreamSchema schema;
    schema.fields = std::make_shared<const Fields>(Fields{"i"});
    constexpr int kTuples = 1000;
    const std::vector<Outcome> expected = ExpectedOutcomes(config, task, kTuples);
    std::vector<Outcome> got;
    for (int i = 0; i < kTuples; ++i) {
      const Tuple t(&schema, 1, Values{i});
      const std::size_t emitted = out.emitted.size();
      const std::size_t failed = out.failed.size();
      try {
        bolt.Execute(t);
      } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "ChaosBolt: injected failure");
        got.push_back(Outcome::kThrow);
        continue;
      }
      if (out.failed.size() > failed) {
        EXPECT_EQ(out.emitted.size(), emitted);
        got.push_back(Outcome::kFail);
      } else {
        ASSERT_EQ(out.emitted.size(), emitted + 1);
        EXPECT_EQ(out.emitted.back().values, (Values{i}));
        got.push_back(Outcome::kForward);
      }
    }
    EXPECT_EQ(got, expected) << "task " << task;
    const auto count = [&](Outcome o) { return std::count(got.begin(), got.end(), o); };
    // Roughly the configured shares (a sanity check of the rule itself).
    EXPECT_NEAR(count(Outcome::kFail), 200, 50);
    EXPECT_NEAR(count(Outcome::kThrow), 100, 40);
  }
  // Different tasks draw different sequences.
  const ChaosBoltConfig config{.fail_fraction = 0.5, .seed = 42};
  EXPECT_NE(ExpectedOutcomes(config, 0, 64), ExpectedOutcomes(config, 1, 64));
}

TEST(ChaosBoltTest, AllFailOrAllThrow) {
  StreamSchema schema;
  schema.fields = std::make_shared<const Fields>(Fields{"i"});
  {
    ChaosBolt bolt({.fail_fraction = 1}, Fields{"i"});
    FakeBoltCollector out;
    bolt.Prepare(BoltContext(), out);
    for (int i = 0; i < 50; ++i) bolt.Execute(Tuple(&schema, 1, Values{i}));
    EXPECT_EQ(out.failed.size(), 50u);
    EXPECT_TRUE(out.emitted.empty());
    EXPECT_TRUE(out.acked.empty());
  }
  {
    ChaosBolt bolt({.throw_fraction = 1}, Fields{"i"});
    FakeBoltCollector out;
    bolt.Prepare(BoltContext(), out);
    for (int i = 0; i < 50; ++i) {
      EXPECT_THROW(bolt.Execute(Tuple(&schema, 1, Values{i})), std::runtime_error);
    }
    EXPECT_TRUE(out.log.empty());
  }
}

TEST(ChaosBoltTest, DelaysEveryTuple) {
  ChaosBolt bolt({.delay_ms = 15}, Fields{"i"});
  FakeBoltCollector out;
  bolt.Prepare(BoltContext(), out);
  StreamSchema schema;
  schema.fields = std::make_shared<const Fields>(Fields{"i"});
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 4; ++i) bolt.Execute(Tuple(&schema, 1, Values{i}));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(60));
  EXPECT_EQ(out.acked.size(), 4u);
}

// A real run: generator → chaos (one task, so it sees ids 0..N-1 in order) → recorder. The run's
// counters and the forwarded tuples match the seeded rule exactly. Without ackers, so failed
// tuples are not replayed (replays would change the order of draws).
TEST(ChaosBoltRunTest, CountsMatchTheSeedAndTheRestIsForwardedUnchanged) {
  constexpr int kCount = 3000;
  const ChaosBoltConfig config{.fail_fraction = 0.15, .throw_fraction = 0.05, .seed = 7};
  const Fields fields{"id", "key", "ts", "payload"};
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b("chaos");
  b.Config().acker_executors = 0;
  b.SetSpout("gen", [] {
    return std::make_unique<spouts::GeneratorSpout>(spouts::GeneratorSpoutConfig{.count = kCount});
  });
  b.SetBolt("chaos", [config, fields] {
     return std::make_unique<ChaosBolt>(config, fields);
   }).ShuffleGrouping("gen");
  b.SetBolt("sink", [recorder] {
     return std::make_unique<testing::RecordingBolt>(recorder);
   }).ShuffleGrouping("chaos");
  const runtime::RunSummary s = runtime::LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;

  const std::vector<Outcome> expected = ExpectedOutcomes(config, 0, kCount);
  std::set<int64_t> forwarded;
  uint64_t fails = 0, throws = 0;
  for (int id = 0; id < kCount; ++id) {
    switch (expected[id]) {
      case Outcome::kForward:
        forwarded.insert(id);
        break;
      case Outcome::kFail:
        ++fails;
        break;
      case Outcome::kThrow:
        ++throws;
        break;
    }
  }
  ASSERT_GT(fails, 0u);
  ASSERT_GT(throws, 0u);
  const runtime::ComponentSummary& chaos = *s.Find("chaos");
  EXPECT_EQ(chaos.executed, static_cast<uint64_t>(kCount));
  EXPECT_EQ(chaos.failed, fails + throws);  // a throw fails the tuple too
  EXPECT_EQ(chaos.errors, throws);
  EXPECT_EQ(chaos.acked, forwarded.size());
  EXPECT_EQ(chaos.emitted, forwarded.size());

  std::set<int64_t> received;
  for (const auto& r : recorder->records()) {
    const int64_t id = r.values[0].AsInt();
    received.insert(id);
    // Unchanged: GeneratorSpout's values for this id.
    EXPECT_EQ(r.values, (Values{id, id % 1000, id, std::string(16, 'x')}));
    EXPECT_EQ(r.stream, "default");
  }
  EXPECT_EQ(recorder->records().size(), forwarded.size());
  EXPECT_EQ(received, forwarded);
}

// With ackers (the default), every failed or thrown-on tuple goes back to its spout and is
// replayed until a draw forwards it: each id reaches the sink exactly once (nothing timed out).
TEST(ChaosBoltRunTest, WithSeveralTasksEveryFailureIsReplayedUntilForwarded) {
  constexpr int kCount = 4000;
  const ChaosBoltConfig config{.fail_fraction = 0.1, .throw_fraction = 0.1, .seed = 99};
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b("chaos");
  b.SetSpout(
      "gen",
      [] {
        return std::make_unique<spouts::GeneratorSpout>(
            spouts::GeneratorSpoutConfig{.count = kCount});
      },
      2);
  b.SetBolt(
       "chaos",
       [config] {
         return std::make_unique<ChaosBolt>(config, Fields{"id", "key", "ts", "payload"});
       },
       3)
      .ShuffleGrouping("gen");
  b.SetBolt("sink", [recorder] {
     return std::make_unique<testing::RecordingBolt>(recorder);
   }).ShuffleGrouping("chaos");
  const runtime::RunSummary s = runtime::LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  const runtime::ComponentSummary& chaos = *s.Find("chaos");
  const runtime::ComponentSummary& gen = *s.Find("gen");
  EXPECT_EQ(chaos.acked, static_cast<uint64_t>(kCount));
  EXPECT_GT(chaos.failed, 0u);
  EXPECT_EQ(chaos.executed, kCount + chaos.failed);
  EXPECT_GT(chaos.errors, 0u);
  EXPECT_LT(chaos.errors, chaos.failed);
  EXPECT_EQ(gen.acked, static_cast<uint64_t>(kCount));
  EXPECT_EQ(gen.failed, chaos.failed);
  EXPECT_EQ(gen.replayed, gen.failed);
  EXPECT_EQ(gen.timed_out, 0u);
  EXPECT_EQ(gen.pending, 0u);
  EXPECT_EQ(gen.emitted, kCount + gen.replayed);
  EXPECT_EQ(gen.complete_latency.Total(), static_cast<uint64_t>(kCount));
  std::set<int64_t> ids;
  for (const auto& r : recorder->records()) ids.insert(r.values[0].AsInt());
  EXPECT_EQ(recorder->records().size(), static_cast<std::size_t>(kCount));
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(kCount));  // every id, none twice
}

}  // namespace
}  // namespace tempest::bolts

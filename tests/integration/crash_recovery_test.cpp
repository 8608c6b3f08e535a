// Issue 5, deliver 4 and 5: at-least-once survives worker crashes. A 200k-line FileSpout feeds
// ChaosBolts on 3 workers and a FileSink; workers are killed with SIGKILL (or exit by themselves
// through ChaosBolt's exit_after) mid-run. What they held times out and is replayed, the bounded
// run still ends by itself, and every input id is in the output at least once. The tests wait on
// the supervisor's status, never on a sleep.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../support/data_dir.h"
#include "../support/temp_dir.h"
#include "../support/tempest_workers.h"
#include "runtime/process/process_cluster.h"

namespace tempest {
namespace {

using namespace std::chrono_literals;
using runtime::ClusterStatus;
using runtime::ProcessCluster;
using runtime::RunSummary;

constexpr int64_t kLines = 200'000;
constexpr auto kDeadline = 120s;

class CrashRecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream in(In());
    for (int64_t i = 0; i < kLines; ++i) in << "{\"id\":" << i << "}\n";
  }
  std::string In() const { return dir_.File("in.jsonl"); }
  std::string Out() const { return dir_.File("out.jsonl"); }

  testing::YamlRun Yaml(int max_pending, double fail, int exit_after) const {
    return {(testing::DataDir() / "acking" / "crash.yaml").string(),
            {{"in", In()},
             {"out", Out()},
             {"max_pending", std::to_string(max_pending)},
             {"fail", std::to_string(fail)},
             {"exit_after", std::to_string(exit_after)}}};
  }

  // The ids of the output, with how many are missing from [0, kLines).
  std::set<int64_t> OutputIds(uint64_t* lines = nullptr) const {
    std::set<int64_t> ids;
    std::istringstream out(testing::ReadFile(Out()));
    uint64_t n = 0;
    for (std::string line; std::getline(out, line); ++n) {
      long long id = -1;
      if (std::sscanf(line.c_str(), "{\"id\":%lld}", &id) == 1) ids.insert(id);
    }
    if (lines != nullptr) *lines = n;
    return ids;
  }

  void ExpectEveryIdAtLeastOnce() const {
    uint64_t lines = 0;
    const std::set<int64_t> ids = OutputIds(&lines);
    EXPECT_GE(lines, static_cast<uint64_t>(kLines));
    std::vector<int64_t> missing;
    for (int64_t i = 0; i < kLines && missing.size() < 10; ++i) {
      if (ids.count(i) == 0) missing.push_back(i);
    }
    EXPECT_TRUE(missing.empty()) << missing.size() << "+ ids lost, the first: " << missing[0];
    EXPECT_EQ(ids.size(), static_cast<std::size_t>(kLines));
  }

  testing::TempDir dir_;
};

uint64_t SinkExecuted(const std::vector<runtime::TaskSnapshot>& tasks) {
  for (const runtime::TaskSnapshot& t : tasks) {
    if (t.component == "sink") return t.executed;
  }
  return 0;
}

TEST_F(CrashRecoveryTest, AWorkerKilledTwiceLosesNoInputId) {
  // The sink acks a line once it is written (every 20 ms), so 500 pending lines keep the run
  // going for seconds: long enough to kill a worker twice while it runs.
  const testing::YamlRun yaml = Yaml(/*max_pending=*/500, /*fail=*/0, /*exit_after=*/0);
  ProcessCluster cluster(yaml.Load(), yaml.Workers(3));
  cluster.Start();
  // Worker 1 runs a ChaosBolt task, the FileSink and an acker.
  for (int kill = 1; kill <= 2; ++kill) {
    const uint64_t progress = SinkExecuted(cluster.Snapshot()) + 20'000;
    ASSERT_TRUE(cluster.WaitFor(
        [&](const ClusterStatus& s) {
          return s.workers.at(1).running && SinkExecuted(s.tasks) >= progress;
        },
        kDeadline))
        << "kill " << kill;
    const runtime::WorkerStatus victim = cluster.Workers().at(1);
    ASSERT_LT(SinkExecuted(cluster.Snapshot()), static_cast<uint64_t>(kLines))
        << "the run ended before kill " << kill;
    ASSERT_EQ(::kill(victim.pid, SIGKILL), 0);
    ASSERT_TRUE(cluster.WaitFor(
        [&](const ClusterStatus& s) {
          return s.workers.at(1).restarts == kill && s.workers.at(1).running;
        },
        kDeadline))
        << "restart " << kill;
  }
  const RunSummary summary = cluster.Wait();  // ends by itself: a bounded file
  ASSERT_TRUE(summary.completed) << summary.error;
  EXPECT_EQ(summary.restarts, 2);
  const runtime::ComponentSummary& lines = *summary.Find("lines");
  EXPECT_EQ(lines.pending, 0u);
  EXPECT_GE(lines.acked, static_cast<uint64_t>(kLines));
  EXPECT_EQ(lines.replayed, lines.failed);  // every failed line went out again
  ExpectEveryIdAtLeastOnce();
}

TEST_F(CrashRecoveryTest, ChaosExitAfterAndFailuresAreRecoveredFrom) {
  // Each ChaosBolt task's worker exits once after 20k tuples (all three workers, the spout's
  // too: its FileSpout starts the file again), and 1% of tuples fail and are replayed.
  const testing::YamlRun yaml = Yaml(/*max_pending=*/1000, /*fail=*/0.01, /*exit_after=*/20'000);
  const RunSummary summary = ProcessCluster(yaml.Load(), yaml.Workers(3)).Run();
  ASSERT_TRUE(summary.completed) << summary.error;
  EXPECT_EQ(summary.restarts, 3);
  const runtime::ComponentSummary& chaos = *summary.Find("chaos");
  EXPECT_GT(chaos.failed, 0u);
  EXPECT_EQ(summary.Find("lines")->pending, 0u);
  ExpectEveryIdAtLeastOnce();
}

}  // namespace
}  // namespace tempest

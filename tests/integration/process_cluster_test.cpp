// The multi-process runtime as users meet it: workers are real `tempest worker` processes under a
// ProcessCluster supervisor in this test process. Nothing here sleeps to synchronise: the tests
// wait on the supervisor's status (WaitFor) or on a process's end (pidfd), with long deadlines.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <regex>
#include <set>
#include <sstream>
#include <zmq.hpp>

#include "../support/data_dir.h"
#include "../support/tempest_workers.h"
#include "ack_mix_bolt.h"
#include "gauge_bolt.h"
#include "transport/frame.h"

namespace tempest {
namespace {

using namespace std::chrono_literals;
using runtime::ClusterStatus;
using runtime::ProcessCluster;
using runtime::RunSummary;

constexpr auto kDeadline = 60s;

// The ids in a FileSink output of GeneratorSpout tuples, in file order.
std::vector<int64_t> Ids(const std::string& path) {
  std::vector<int64_t> ids;
  std::istringstream in(testing::ReadFile(path));
  for (std::string line; std::getline(in, line);) {
    long long id = -1;
    if (std::sscanf(line.c_str(), "{\"id\":%lld,", &id) == 1) ids.push_back(id);
  }
  return ids;
}

// Every id in [0, n) exactly once.
void ExpectEachIdOnce(const std::vector<int64_t>& ids, int64_t n) {
  std::vector<int64_t> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(sorted.size(), static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (sorted[i] != i) {
      ADD_FAILURE() << "id " << i << " is missing or duplicated (found " << sorted[i] << ")";
      return;
    }
  }
}

class ProcessClusterTest : public ::testing::Test {
 protected:
  testing::YamlRun Steady(uint64_t count, uint64_t rate, int timeout_secs = 30) const {
    return {(testing::DataDir() / "process" / "steady.yaml").string(),
            {{"count", std::to_string(count)},
             {"rate", std::to_string(rate)},
             {"timeout", std::to_string(timeout_secs)},
             {"out_dir", out_.path()}}};
  }
  std::string Out() const { return out_.File("out.jsonl"); }

  testing::TempDir out_;
};

// issue 4, deliver 6: the end-of-stream handshake, not linger, gets the last tuples across.
TEST_F(ProcessClusterTest, ABoundedRunOnThreeWorkersLosesNothing) {
  for (const auto endpoint : {transport::EndpointKind::kIpc, transport::EndpointKind::kTcp}) {
    const testing::YamlRun yaml = Steady(200'000, 0);
    runtime::ProcessRunOptions options = yaml.Workers(3);
    options.endpoint = endpoint;
    const RunSummary summary = ProcessCluster(yaml.Load(), options).Run();
    ASSERT_TRUE(summary.completed) << summary.error;
    EXPECT_EQ(summary.workers, 3);
    EXPECT_EQ(summary.restarts, 0);
    EXPECT_EQ(summary.Find("gen")->emitted, 200'000u);
    EXPECT_EQ(summary.Find("pass")->executed, 200'000u);
    EXPECT_EQ(summary.Find("sink")->executed, 200'000u);
    ExpectEachIdOnce(Ids(Out()), 200'000);
  }
}

// Every id's tree completes across workers whether the spout tracks its trees (the bolts' acks
// cross to its worker) or the ackers do (Storm's way): the acker tasks decide none, or all.
TEST_F(ProcessClusterTest, TreesCompleteAcrossWorkersTrackedBySpoutsOrByAckers) {
  for (const bool spouts : {true, false}) {
    SCOPED_TRACE(spouts ? "spouts track" : "ackers track");
    const testing::YamlRun yaml = Steady(50'000, 0);
    runtime::ProcessRunOptions options = yaml.Workers(3);
    options.run.spouts_track_trees = spouts;
    ProcessCluster cluster(yaml.Load(), options);
    const RunSummary summary = cluster.Run();
    ASSERT_TRUE(summary.completed) << summary.error;
    EXPECT_EQ(summary.Find("gen")->acked, 50'000u);
    EXPECT_EQ(summary.Find("gen")->failed, 0u);
    uint64_t by_ackers = 0;
    for (const runtime::TaskSnapshot& t : cluster.Snapshot()) {
      if (t.component == topology::kAckerComponent) by_ackers += t.acked;
    }
    EXPECT_EQ(by_ackers, spouts ? 0u : 50'000u);
    ExpectEachIdOnce(Ids(Out()), 50'000);
  }
}

// Frame acks (docs/acking.md): a bolt acks its inputs every way a bolt can (at once, after
// forwarding them, later from a copy, after failing them once), in the spout's worker and in the
// other one, and every tree is decided as without frame acks: every id acked, each id = 3 (mod 4)
// failed and replayed once, the forwarded quarter in the sink exactly once.
TEST_F(ProcessClusterTest, TreesAckedEveryWayAcrossWorkersAreDecidedExactly) {
  constexpr int64_t kCount = 40'000;
  topology::ComponentRegistry registry;
  spouts::RegisterBuiltinSpouts(registry);
  bolts::RegisterBuiltinBolts(registry);
  testing::RegisterAckMixBolt(registry);
  const std::vector<std::pair<std::string, std::string>> set = {{"count", std::to_string(kCount)},
                                                                {"out_dir", out_.path()}};
  topology::LoadOptions load;
  load.registry = &registry;
  load.set = set;
  const auto spec =
      topology::LoadTopology((testing::DataDir() / "process" / "ack_mix.yaml").string(), load);
  runtime::ProcessRunOptions options;
  options.workers = 2;
  options.worker_command = {TEMPEST_BIN, "worker",
                            (testing::DataDir() / "process" / "ack_mix_worker.yaml").string()};
  for (const auto& [k, v] : set) {
    options.worker_command.push_back("--set");
    options.worker_command.push_back(k + "=" + v);
  }
  options.worker_command.push_back("--set");
  options.worker_command.push_back(std::string("plugin=") + TEMPEST_GAUGE_PLUGIN);
  options.worker_command.push_back("--quiet");
  const RunSummary summary = ProcessCluster(spec, options).Run();
  ASSERT_TRUE(summary.completed) << summary.error;
  const auto* gen = summary.Find("gen");
  EXPECT_EQ(gen->acked, static_cast<uint64_t>(kCount));
  EXPECT_EQ(gen->failed, static_cast<uint64_t>(kCount / 4));
  EXPECT_EQ(gen->timed_out, 0u);
  EXPECT_EQ(gen->replayed, static_cast<uint64_t>(kCount / 4));
  EXPECT_EQ(gen->pending, 0u);
  EXPECT_EQ(summary.Find("mix")->executed, static_cast<uint64_t>(kCount + kCount / 4));
  std::vector<int64_t> forwarded = Ids(Out());
  std::sort(forwarded.begin(), forwarded.end());
  std::vector<int64_t> expected;
  for (int64_t id = 1; id < kCount; id += 4) expected.push_back(id);
  EXPECT_EQ(forwarded, expected);
}

// Gauges a bolt reports in its worker reach the supervisor's summary, summed over the tasks of
// both workers. The supervisor has GaugeBolt registered here; the workers load it as a plugin.
TEST_F(ProcessClusterTest, GaugesOfEveryWorkerAreSummedInTheSummary) {
  topology::ComponentRegistry registry;
  spouts::RegisterBuiltinSpouts(registry);
  testing::RegisterGaugeBolt(registry);
  topology::LoadOptions load;
  load.registry = &registry;
  load.set = {{"count", "10000"}};
  const auto spec =
      topology::LoadTopology((testing::DataDir() / "process" / "gauges.yaml").string(), load);
  runtime::ProcessRunOptions options;
  options.workers = 2;
  options.worker_command = {TEMPEST_BIN,
                            "worker",
                            (testing::DataDir() / "process" / "gauges_worker.yaml").string(),
                            "--set",
                            "count=10000",
                            "--set",
                            std::string("plugin=") + TEMPEST_GAUGE_PLUGIN,
                            "--quiet"};
  ProcessCluster cluster(spec, options);
  const RunSummary summary = cluster.Run();
  ASSERT_TRUE(summary.completed) << summary.error;
  EXPECT_EQ(summary.workers, 2);
  EXPECT_EQ(summary.Find("gauges")->executed, 10000u);
  const std::vector<std::pair<std::string, uint64_t>> expected = {{"rows", 10000}, {"tasks", 4}};
  EXPECT_EQ(summary.Find("gauges")->gauges, expected);
  EXPECT_TRUE(summary.Find("gen")->gauges.empty());
  EXPECT_EQ(summary.Find("gauges")->dropped, 1000u);
  EXPECT_EQ(summary.Find("gauges")->dropped_by_cause, (topology::NamedCounts{{"tenth", 1000}}));
  // The bolt's own metrics, from every worker's last heartbeat: each task's, adding up.
  int64_t seen = 0, marks = 0, ones_sum = 0;
  uint64_t ones_in_bucket_1 = 0;
  for (const runtime::TaskSnapshot& t : cluster.Snapshot()) {
    if (t.component != "gauges") continue;
    ASSERT_EQ(t.user_metrics.size(), 4u) << "task " << t.task;
    EXPECT_EQ(t.user_metrics[0].name, "seen");
    seen += t.user_metrics[0].value;
    EXPECT_EQ(t.user_metrics[1].kind, topology::MetricReading::Kind::kMeter);
    marks += t.user_metrics[1].value;
    EXPECT_EQ(t.user_metrics[2].kind, topology::MetricReading::Kind::kHistogram);
    ones_sum += t.user_metrics[2].value;
    ASSERT_EQ(t.user_metrics[2].buckets.size(), 2u);
    EXPECT_EQ(t.user_metrics[2].buckets[0], 1u);
    ones_in_bucket_1 += t.user_metrics[2].buckets[1];
    EXPECT_EQ(t.user_metrics[3],
              (topology::MetricReading{"task", topology::MetricReading::Kind::kGauge, t.task, {}}));
    EXPECT_EQ(t.execute_latency.Total(), t.executed / 32) << "one tuple in 32 is timed";
  }
  EXPECT_EQ(seen, 10000);
  EXPECT_EQ(marks, 10000);
  EXPECT_EQ(ones_sum, 10000);
  EXPECT_EQ(ones_in_bucket_1, 10000u);
}

TEST_F(ProcessClusterTest, TheRunFolderIsPrivateAndRemovedAtTheEnd) {
  const testing::YamlRun yaml = Steady(10, 0);
  std::string dir;
  {
    ProcessCluster cluster(yaml.Load(), yaml.Workers(2));
    cluster.Start();
    dir = cluster.run_dir();
    struct stat st {};
    ASSERT_EQ(::stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    EXPECT_TRUE(std::filesystem::exists(dir + "/worker-0.sock"));
    EXPECT_TRUE(cluster.Wait().completed);
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
}

// Garbage of every kind sent straight to a worker's socket is counted and dropped; the run goes
// on, a graceful stop drains it, and every tuple the spout emitted reaches the sink once.
TEST_F(ProcessClusterTest, GarbageFramesAreCountedAndDroppedAndTheRunGoesOn) {
  const testing::YamlRun yaml = Steady(0, 5000);
  ProcessCluster cluster(yaml.Load(), yaml.Workers(2));
  cluster.Start();
  ASSERT_TRUE(cluster.WaitFor([](const ClusterStatus& s) { return s.starts >= 2; }, kDeadline));

  std::string truncated, wrong_version, misaddressed;
  transport::EncodeControlFrame(transport::FrameKind::kEndOfStream, 2, 1, truncated);
  truncated.pop_back();
  transport::EncodeControlFrame(transport::FrameKind::kEndOfStream, 2, 1, wrong_version);
  wrong_version[1] = 9;
  transport::EncodeControlFrame(transport::FrameKind::kEndOfStream, 2, 77, misaddressed);
  {
    zmq::context_t ctx;
    zmq::socket_t push(ctx, zmq::socket_type::push);
    push.set(zmq::sockopt::linger, 5000);
    push.connect("ipc://" + cluster.run_dir() + "/worker-0.sock");
    for (const std::string& bad :
         {std::string("\xc1garbage\xff"), truncated, wrong_version, misaddressed}) {
      push.send(zmq::buffer(bad), zmq::send_flags::none);
    }
  }
  EXPECT_TRUE(cluster.WaitFor(
      [](const ClusterStatus& s) { return s.workers.at(0).dropped_frames == 4; }, kDeadline));
  cluster.Stop();
  const RunSummary summary = cluster.Wait();
  ASSERT_TRUE(summary.completed) << summary.error;
  EXPECT_EQ(summary.dropped_frames, 4u);
  const uint64_t emitted = summary.Find("gen")->emitted;
  EXPECT_GT(emitted, 0u);
  EXPECT_EQ(summary.Find("sink")->executed, emitted);
  ExpectEachIdOnce(Ids(Out()), static_cast<int64_t>(emitted));
}

TEST_F(ProcessClusterTest, AKilledWorkerIsReportedAndRestartedWithTheSameTasks) {
  // What the killed worker held times out within 2-4 s, so the stop can drain it.
  const testing::YamlRun yaml = Steady(0, 2000, 2);
  ProcessCluster cluster(yaml.Load(), yaml.Workers(3));
  cluster.Start();
  ASSERT_TRUE(cluster.WaitFor([](const ClusterStatus& s) { return s.starts >= 3; }, kDeadline));
  const runtime::WorkerStatus before = cluster.Workers().at(1);
  // Round-robin, (task - 1) mod 3 == 1: a pass task, the sink and the third acker (tasks 6-8).
  EXPECT_EQ(before.tasks, (std::vector<int>{2, 5, 8}));
  // Task 5 is the FileSink: what it wrote before the crash must survive the restart.
  ASSERT_TRUE(cluster.WaitFor([](const ClusterStatus& s) { return s.tasks.at(4).executed > 100; },
                              kDeadline));
  ASSERT_EQ(::kill(before.pid, SIGKILL), 0);
  const std::string written = testing::ReadFile(Out());
  ASSERT_FALSE(written.empty());
  ASSERT_TRUE(cluster.WaitFor(
      [](const ClusterStatus& s) {
        return s.starts >= 4 && s.workers.at(1).restarts == 1 && s.workers.at(1).running;
      },
      kDeadline));
  const runtime::WorkerStatus after = cluster.Workers().at(1);
  EXPECT_NE(after.pid, before.pid);
  EXPECT_EQ(after.tasks, before.tasks);
  // The run goes on through the new worker: its tasks execute again, then it drains.
  const uint64_t sink_before = cluster.Snapshot().at(4).executed;
  EXPECT_TRUE(cluster.WaitFor(
      [&](const ClusterStatus& s) { return s.tasks.at(4).executed > sink_before + 100; },
      kDeadline));
  cluster.Stop();
  const RunSummary summary = cluster.Wait();
  EXPECT_TRUE(summary.completed) << summary.error;
  EXPECT_EQ(summary.restarts, 1);
  const std::string after_run = testing::ReadFile(Out());
  EXPECT_GT(after_run.size(), written.size());
  EXPECT_EQ(after_run.substr(0, written.size()), written)
      << "the restarted sink truncated its file";
}

TEST_F(ProcessClusterTest, DeactivatedSpoutsStopInEveryWorkerUntilActivated) {
  const testing::YamlRun yaml = Steady(0, 2000);
  ProcessCluster cluster(yaml.Load(), yaml.Workers(2));
  cluster.Start();
  ASSERT_TRUE(cluster.WaitFor([](const ClusterStatus& s) { return s.tasks.at(0).emitted > 200; },
                              kDeadline));
  cluster.SetActive(false);
  // The spout (task 1) emits 2000 a second while active: its count changes at every heartbeat
  // of its worker. Deactivated, it holds still over several heartbeats of both workers.
  uint64_t last = 0;
  int unchanged = 0;
  ASSERT_TRUE(cluster.WaitFor(
      [&](const ClusterStatus& s) {
        const uint64_t emitted = s.tasks.at(0).emitted;
        unchanged = emitted == last ? unchanged + 1 : 0;
        last = emitted;
        return unchanged >= 6;
      },
      kDeadline));
  const uint64_t frozen = last;
  cluster.SetActive(true);
  ASSERT_TRUE(cluster.WaitFor(
      [&](const ClusterStatus& s) { return s.tasks.at(0).emitted > frozen + 200; }, kDeadline));
  cluster.Stop();
  const RunSummary summary = cluster.Wait();
  EXPECT_TRUE(summary.completed) << summary.error;
  EXPECT_EQ(summary.Find("gen")->acked, summary.Find("gen")->emitted);
}

TEST_F(ProcessClusterTest, AHungWorkerIsKilledAfterTheTimeoutAndRestarted) {
  const testing::YamlRun yaml = Steady(0, 2000, 2);
  runtime::ProcessRunOptions options = yaml.Workers(2);
  options.heartbeat = 100ms;
  options.worker_timeout = 2000ms;
  ProcessCluster cluster(yaml.Load(), options);
  cluster.Start();
  ASSERT_TRUE(cluster.WaitFor([](const ClusterStatus& s) { return s.starts >= 2; }, kDeadline));
  const int pid = cluster.Workers().at(1).pid;
  ASSERT_EQ(::kill(pid, SIGSTOP), 0);
  ASSERT_TRUE(cluster.WaitFor(
      [](const ClusterStatus& s) {
        return s.workers.at(1).restarts == 1 && s.workers.at(1).running;
      },
      kDeadline));
  EXPECT_NE(cluster.Workers().at(1).pid, pid);
  cluster.Stop();
  const RunSummary summary = cluster.Wait();
  EXPECT_TRUE(summary.completed) << summary.error;
  EXPECT_EQ(cluster.Workers().at(1).restarts, 1);
}

TEST_F(ProcessClusterTest, AFailureWhilePreparingEndsTheRunWithItsMessage) {
  const testing::YamlRun yaml{(testing::DataDir() / "cli" / "missing_input.yaml").string(), {}};
  const RunSummary summary = ProcessCluster(yaml.Load(), yaml.Workers(2)).Run();
  EXPECT_FALSE(summary.completed);
  EXPECT_TRUE(std::regex_search(summary.error,
                                std::regex("^spout 'lines' task 1 failed to open: .*no_such_file")))
      << summary.error;
}

TEST_F(ProcessClusterTest, AWorkerThatLoadedAnotherTopologyIsRefused) {
  const testing::YamlRun yaml = Steady(10, 0);
  runtime::ProcessRunOptions options = yaml.Workers(2);
  options.worker_command.at(2) = (testing::DataDir() / "process" / "slow.yaml").string();
  const RunSummary summary = ProcessCluster(yaml.Load(), options).Run();
  EXPECT_FALSE(summary.completed);
  EXPECT_NE(summary.error.find("loaded a different topology than the supervisor"),
            std::string::npos)
      << summary.error;
}

TEST_F(ProcessClusterTest, AWorkerCommandThatCannotRunIsNamed) {
  const testing::YamlRun yaml = Steady(10, 0);
  runtime::ProcessRunOptions options = yaml.Workers(2);
  options.worker_command.at(0) = "/nonexistent/tempest";
  const RunSummary summary = ProcessCluster(yaml.Load(), options).Run();
  EXPECT_FALSE(summary.completed);
  EXPECT_TRUE(std::regex_match(summary.error,
                               std::regex("cannot start worker [01]: /nonexistent/tempest could "
                                          "not be run \\(not found or not executable\\)")))
      << summary.error;
}

// Backpressure end to end: the bolt takes 1 ms a tuple in the other worker; the spout could emit
// millions a second, but credits hold it to what the bolt's queue can take.
TEST_F(ProcessClusterTest, ASlowRemoteBoltSlowsTheSpoutAndNothingIsDropped) {
  const testing::YamlRun yaml{(testing::DataDir() / "process" / "slow.yaml").string(), {}};
  runtime::ProcessRunOptions options = yaml.Workers(2);
  options.run.queue_capacity = 64;
  options.run.batch_size = 16;
  ProcessCluster cluster(yaml.Load(), options);
  const RunSummary summary = cluster.Run();
  ASSERT_TRUE(summary.completed) << summary.error;
  EXPECT_EQ(summary.Find("chaos")->executed, 1000u);
  EXPECT_EQ(summary.Find("sink")->executed, 1000u);
  const runtime::TaskSnapshot chaos = cluster.Snapshot().at(0);
  ASSERT_EQ(chaos.component, "chaos");
  EXPECT_GT(chaos.queue_high_water, 0u);
  EXPECT_LE(chaos.queue_high_water, 64u);  // one sending worker, 64 tuples of credit
}

// The same credit set by the topology (Storm's topology.executor.receive.buffer.size) instead of
// the run's options: the key reaches every worker and wins over the run's default (16,384).
TEST_F(ProcessClusterTest, TheReceiveBufferSettingBoundsTheCredit) {
  const testing::YamlRun yaml{(testing::DataDir() / "process" / "slow.yaml").string(),
                              {{"topology.executor.receive.buffer.size", "64"}}};
  runtime::ProcessRunOptions options = yaml.Workers(2);
  options.run.batch_size = 16;
  ProcessCluster cluster(yaml.Load(), options);
  const RunSummary summary = cluster.Run();
  ASSERT_TRUE(summary.completed) << summary.error;
  EXPECT_EQ(summary.Find("sink")->executed, 1000u);
  const runtime::TaskSnapshot chaos = cluster.Snapshot().at(0);
  ASSERT_EQ(chaos.component, "chaos");
  EXPECT_GT(chaos.queue_high_water, 0u);
  EXPECT_LE(chaos.queue_high_water, 64u);
}

// The supervisor killed with SIGKILL: its workers go too (no orphans), within the deadline.
TEST(ProcessClusterOrphanTest, NoWorkerOutlivesAKilledSupervisor) {
  testing::TempDir out;
  int err[2];
  ASSERT_EQ(::pipe2(err, O_CLOEXEC), 0);
  const std::string yaml = (testing::DataDir() / "process" / "steady.yaml").string();
  const std::string out_dir = "out_dir=" + out.path();
  const pid_t supervisor = ::fork();
  if (supervisor == 0) {
    ::dup2(err[1], 1);  // spdlog logs to stdout
    ::dup2(err[1], 2);
    ::execl(TEMPEST_BIN, TEMPEST_BIN, "run", yaml.c_str(), "--workers", "2", "--set", "count=0",
            "--set", "rate=1000", "--set", "timeout=30", "--set", out_dir.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(err[1]);
  // "2 workers running: worker 0 (pid 123, tasks 1 3 5), worker 1 (pid 124, tasks 2 4)"
  std::string text;
  std::smatch m;
  const std::regex running("workers running: worker 0 \\(pid (\\d+),.*worker 1 \\(pid (\\d+),");
  char buf[4096];
  // Bounded: a supervisor that never says its workers run fails the test rather than hang it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!std::regex_search(text, m, running)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{err[0], POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) != 1) {
      ::kill(supervisor, SIGKILL);
      ::waitpid(supervisor, nullptr, 0);
      FAIL() << "no \"workers running\" line within 120 s:\n" << text;
    }
    const ssize_t n = ::read(err[0], buf, sizeof buf);
    ASSERT_GT(n, 0) << "the supervisor ended before its workers ran:\n" << text;
    text.append(buf, static_cast<std::size_t>(n));
  }
  const std::vector<pid_t> workers = {std::stoi(m[1]), std::stoi(m[2])};
  std::vector<int> handles;
  for (pid_t w : workers) {
    const int fd = static_cast<int>(::syscall(SYS_pidfd_open, w, 0));
    ASSERT_GE(fd, 0) << "worker " << w << " is already gone before the supervisor was killed";
    handles.push_back(fd);
  }
  ASSERT_EQ(::kill(supervisor, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(supervisor, &status, 0), supervisor);
  for (std::size_t i = 0; i < handles.size(); ++i) {
    pollfd p{handles[i], POLLIN, 0};
    EXPECT_EQ(::poll(&p, 1, 30'000), 1) << "worker " << workers[i] << " outlived its supervisor";
    ::close(handles[i]);
  }
  ::close(err[0]);
}

}  // namespace
}  // namespace tempest

#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/run_summary.h"
#include "topology/topology_spec.h"
#include "transport/transport.h"

namespace tempest::runtime {

struct ProcessRunOptions {
  int workers = 2;
  // The command that runs one worker (RunWorker behind it), e.g. {"/usr/bin/tempest", "worker",
  // "wc.yaml", "--set", "k=v"}: it must load the same topology. The supervisor hands each
  // worker its flags (--worker-index, --workers, --control-fd, --run-dir, --endpoint, ...;
  // docs/multi-process.md) in the environment variable kWorkerFlagsVariable, one per line, so
  // the command line stays the program's own.
  std::vector<std::string> worker_command;
  transport::EndpointKind endpoint = transport::EndpointKind::kIpc;
  LocalRunOptions run;  // per worker; stop_timeout bounds a graceful stop of the whole run
  std::chrono::milliseconds heartbeat{500};
  // A worker silent for this long is killed and restarted (Storm's supervisor.worker.timeout.secs).
  std::chrono::milliseconds worker_timeout{30'000};
  // Restarts of one worker after which the run fails.
  int max_restarts = 5;
  // The run's private folder; empty: a new one (mode 0700), removed at the end.
  std::string run_dir;
  // Each line a worker writes to its stderr (its logs), called on the supervisor's thread;
  // empty: workers write straight to this process's stderr.
  std::function<void(std::string_view line)> worker_output;
};

// One worker process as the supervisor sees it.
struct WorkerStatus {
  int index = 0;
  int pid = 0;  // of the current incarnation (0 between a crash and its restart)
  int restarts = 0;
  bool running = false;  // started and not (yet) exited
  std::vector<int> tasks;
  uint64_t dropped_frames = 0;  // bad frames it received, over all its incarnations
};

// What ProcessCluster::WaitFor shows its predicate.
struct ClusterStatus {
  int starts = 0;      // worker incarnations started (the first N included)
  bool ended = false;  // every worker has exited
  std::vector<WorkerStatus> workers;
  std::vector<TaskSnapshot> tasks;  // as Snapshot()
};

// Runs a validated topology as N worker processes under a supervisor in this process (Storm's
// supervisor and workers on one machine). Start() spawns the workers, waits until every one is
// connected to every other and has prepared its tasks, then starts the spouts; a crashed or hung
// worker is reported and restarted with the same tasks; a bounded run ends by itself
// (docs/contracts.md, "Bounded runs") and Wait() returns the summary over all workers. Stop()
// drains gracefully. No worker outlives the supervisor: each dies with it (PR_SET_PDEATHSIG) and
// exits when its control socket closes. All methods may be called from any thread; Start/Wait/Run
// from one.
class ProcessCluster {
 public:
  ProcessCluster(std::shared_ptr<const topology::TopologySpec> topology, ProcessRunOptions options);
  ~ProcessCluster();  // stops (gracefully, bounded) and reaps every worker
  ProcessCluster(const ProcessCluster&) = delete;
  ProcessCluster& operator=(const ProcessCluster&) = delete;

  // Returns once the spouts have started, or the run has already ended (a worker failed while
  // preparing: Wait() says why). Throws std::runtime_error if the run folder cannot be made,
  // std::logic_error if started twice.
  void Start();
  void Stop();
  // As LocalCluster::SetActive, in every worker (a restarted one too). Returns at once.
  void SetActive(bool active);
  RunSummary Wait();
  RunSummary Run();

  std::vector<TaskSnapshot> Snapshot() const;  // latest heartbeats of every worker
  std::vector<WorkerStatus> Workers() const;
  const std::string& run_dir() const noexcept;
  // Blocks until `ready(status)` holds (checked at every change the supervisor sees: starts,
  // exits, heartbeats) or `timeout` passed; returns whether it held.
  bool WaitFor(const std::function<bool(const ClusterStatus&)>& ready,
               std::chrono::milliseconds timeout) const;

 private:
  class Supervisor;
  std::unique_ptr<Supervisor> supervisor_;
};

}  // namespace tempest::runtime

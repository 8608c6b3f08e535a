#pragma once

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "runtime/queues/chaining.h"
#include "runtime/queues/task_queue.h"
#include "runtime/run_control.h"
#include "runtime/run_summary.h"
#include "runtime/task_metrics.h"
#include "topology/task_layout.h"
#include "topology/topology_spec.h"
#include "transport/stream_table.h"

namespace tempest::runtime {

class Executor;
class RemoteLink;

// The tasks one process runs: their queues, metrics, executors and threads, and the RunControl
// they share. LocalCluster hosts every task; a worker hosts its share and reaches the others
// through a RemoteLink. Start/Join from one controlling thread; the rest from any thread.
class TaskHost {
 public:
  struct Options {
    LocalRunOptions run;
    // Tasks with a queue in this process (ascending); empty: every task of the topology.
    std::vector<int> tasks;
    // Of those, tasks not to start (they finished before this worker was restarted).
    std::vector<int> skip;
    RemoteLink* link = nullptr;                       // with `tasks`: how to reach the rest
    const transport::StreamTable* streams = nullptr;  // with `link`
    bool restarted = false;                           // TopologyContext::IsRestarted
    bool open_gate_when_ready = true;                 // see RunControl
    std::function<void()> notify;                     // see RunControl::Hooks
  };

  TaskHost(std::shared_ptr<const topology::TopologySpec> spec,
           std::shared_ptr<const topology::TaskLayout> layout, Options options);
  ~TaskHost();  // aborts what still runs and joins
  TaskHost(const TaskHost&) = delete;
  TaskHost& operator=(const TaskHost&) = delete;

  // Creates the executors and starts their threads. Throws what building them throws (e.g. a
  // custom grouping's Prepare); then nothing runs.
  void Start();
  void Join();
  RunControl& control() noexcept { return *control_; }
  const std::vector<TaskQueue*>& queues() const noexcept { return queue_ptrs_; }
  // The tasks this host runs (without the skipped ones).
  const std::vector<int>& running() const noexcept { return running_; }
  std::vector<TaskSnapshot> Snapshot() const;

 private:
  std::shared_ptr<const topology::TopologySpec> spec_;
  std::shared_ptr<const topology::TaskLayout> layout_;
  Options options_;
  std::vector<int> running_;
  ChainTable chains_;                               // who runs on whose thread (topology.chaining)
  std::vector<std::unique_ptr<TaskQueue>> queues_;  // by task id
  std::vector<TaskQueue*> queue_ptrs_;              // by task id; nullptr: not here
  std::vector<std::unique_ptr<TaskMetrics>> metrics_;
  std::unique_ptr<RunControl> control_;
  std::vector<std::unique_ptr<Executor>> executors_;
  std::vector<std::thread> threads_;
};

}  // namespace tempest::runtime

#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "runtime/queues/task_queue.h"
#include "runtime/routing/router.h"
#include "runtime/run_control.h"
#include "runtime/task_metrics.h"
#include "topology/task_layout.h"
#include "topology/topology_spec.h"
#include "transport/stream_table.h"

namespace tempest::runtime {

class RemoteLink;
struct ChainTable;

// Everything an executor needs; owned by the cluster, which outlives its executors.
struct ExecutorSetup {
  std::shared_ptr<const topology::TopologySpec> spec;
  std::shared_ptr<const topology::TaskLayout> layout;
  int task = 0;
  // By task id (index 0 unused); nullptr for a task of another worker. The host's table, shared
  // by every task.
  std::span<TaskQueue* const> queues;
  RemoteLink* link = nullptr;                       // multi-process runs only
  const transport::StreamTable* streams = nullptr;  // multi-process runs only
  bool restarted = false;  // this task's worker was restarted within the run
  RunControl* control = nullptr;
  TaskMetrics* metrics = nullptr;
  Router::Options router;
  std::size_t batch_size = 256;
  std::size_t frame_bytes = 64 * 1024;
  bool spouts_track_trees = true;  // LocalRunOptions::spouts_track_trees
  // Operator chaining (runtime/queues/chaining.h): a chained bolt task registers its executor here;
  // every task's Outbox delivers to the tasks chained to it. Never null in a TaskHost's run.
  ChainTable* chains = nullptr;
};

// Runs one task on the calling thread: creates the component instance, prepares it, waits for
// every task of the run to be ready, processes until the task's input ends (or the run stops),
// sends end-of-stream downstream and cleans up. Run() never throws: user exceptions are logged
// and counted, or end the run through RunControl::Fatal.
class Executor {
 public:
  virtual ~Executor() = default;
  virtual void Run() = 0;
};

std::unique_ptr<Executor> MakeSpoutExecutor(ExecutorSetup setup);
std::unique_ptr<Executor> MakeBoltExecutor(ExecutorSetup setup);
// An acker task (topology::kAckerComponent): keeps the AckLedger of the trees routed to it.
std::unique_ptr<Executor> MakeAckerExecutor(ExecutorSetup setup);

}  // namespace tempest::runtime

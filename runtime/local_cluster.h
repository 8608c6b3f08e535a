#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "topology/topology_spec.h"

namespace tempest::runtime {

struct LocalRunOptions {
  // Tuples a task's inbound queue holds before its producers block (backpressure).
  std::size_t queue_capacity = 16 * 1024;
  // Tuples per hand-off between tasks; a partial batch is flushed whenever its producer runs
  // out of input (and at least every millisecond for a busy spout).
  std::size_t batch_size = 256;
  // How long a Stop() may drain before the run is cut short.
  std::chrono::milliseconds stop_timeout{10'000};
  // Seed of the shuffle orders and random choices of the groupings (reproducible runs).
  uint64_t seed = 0x7E3D57;
};

// Totals of one component over a run.
struct ComponentSummary {
  std::string id;
  int tasks = 0;
  uint64_t emitted = 0;
  uint64_t executed = 0;
  uint64_t acked = 0;
  uint64_t failed = 0;
  uint64_t errors = 0;
};

struct RunSummary {
  std::vector<ComponentSummary> components;  // in topology order
  double seconds = 0;
  bool completed = false;  // every task ended by end-of-stream (not force-stopped)
  std::string error;       // the fatal error that ended the run, if any

  const ComponentSummary* Find(std::string_view id) const noexcept;
};

// Per-task live view, for progress displays and tests.
struct TaskSnapshot {
  int task = 0;
  std::string component;
  uint64_t emitted = 0, executed = 0, acked = 0, failed = 0, errors = 0;
  std::size_t queue_high_water = 0;  // most tuples ever queued for this task
  uint64_t blocked_pushes = 0;       // times a producer waited for room in its queue
};

// Runs a validated topology inside this process (Storm's LocalCluster): one thread per task,
// bounded queues between them. Start() returns once every task thread is running; a bounded
// topology ends by itself (DESIGN.md 2.2) and Wait() returns its summary. Stop() ends an
// unbounded one gracefully. Stop() and Snapshot() may be called from any thread; the others
// from one controlling thread.
class LocalCluster {
 public:
  explicit LocalCluster(std::shared_ptr<const topology::TopologySpec> topology,
                        LocalRunOptions options = {});
  ~LocalCluster();  // stops (gracefully, bounded by stop_timeout) and joins
  LocalCluster(const LocalCluster&) = delete;
  LocalCluster& operator=(const LocalCluster&) = delete;

  // Validates again, creates the executors and starts their threads. Throws
  // InvalidTopologyException or std::logic_error (started twice).
  void Start();
  // Spouts stop emitting and send end-of-stream; the run drains. Returns at once; safe from any
  // thread.
  void Stop();
  // Blocks until every task has finished (after Stop(): at most stop_timeout, then the run is
  // cut short and `completed` is false).
  RunSummary Wait();
  // Start() + Wait().
  RunSummary Run();

  std::vector<TaskSnapshot> Snapshot() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tempest::runtime

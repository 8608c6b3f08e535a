#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/run_summary.h"
#include "topology/topology_spec.h"

namespace tempest::runtime {

// Runs a validated topology inside this process (Storm's LocalCluster): one thread per task,
// bounded queues between them. Start() returns once every task thread is running; a bounded
// topology ends by itself (docs/contracts.md, "Bounded runs") and Wait() returns its summary.
// Stop() ends an unbounded one gracefully. Stop() and Snapshot() may be called from any thread; the
// others from one controlling thread.
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
  // Deactivated spouts stop emitting until activated again (Storm's deactivate/activate): the
  // bolts drain what is in flight, acks and failures still reach the spouts. Safe from any
  // thread; before Start() it does nothing.
  void SetActive(bool active);
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

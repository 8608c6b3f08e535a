#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/emitter.h"
#include "runtime/executor.h"
#include "topology/topology_context.h"

namespace tempest::runtime {

// The life of every task, shared by spout and bolt executors: create and open/prepare the
// component (a failure ends the run with a message naming component and task), wait for every
// task of the run, run the loop, then close/clean up and report the task finished.
// The spout tasks that track the trees of `task`'s inputs themselves, ascending: those that
// reach it and whose task id is the lane of their roots (runtime/acking/ack_ids.h). A bolt acks
// straight to them, and to an acker only the trees of other spouts. Empty without ackers.
std::vector<int> SelfTrackingSpouts(const ExecutorSetup& setup);

class TaskExecutor : public Executor {
 public:
  explicit TaskExecutor(ExecutorSetup setup);
  void Run() final;

 protected:
  // Creates the component instance and opens/prepares it; may throw.
  virtual void Start() = 0;
  // What Start does, for the error message: "open" or "prepare".
  virtual const char* StartVerb() const = 0;
  virtual void Loop() = 0;
  // Close/Cleanup, if Start created the instance; may throw.
  virtual void Finish() = 0;

  // Counts a user-code error and logs it (rate-limited).
  void Error(const char* what, const std::string& detail);

  ExecutorSetup setup_;
  topology::TopologyContext context_;
  TaskMetrics& metrics_;
  Emitter emitter_;
};

}  // namespace tempest::runtime

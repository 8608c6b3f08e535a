#pragma once

#include <vector>

#include "runtime/queues/envelope.h"
#include "topology/task_layout.h"
#include "topology/topology_spec.h"

namespace tempest::runtime {

// Operator chaining (topology.chaining, as Flink chains operators): a bolt task whose only
// upstream task is a bolt of the same process runs on that task's thread. The upstream's Outbox
// hands it each batch and marker by calling Deliver instead of pushing to its queue, which saves
// the hand-off between threads (and, on few cores, a busy thread). The chained task's own thread
// still prepares it, runs its ticks and cleans it up; Deliver, ticks and FlushOutput are
// serialised by the chained task, so its bolt never runs on two threads at once.
class ChainedInput {
 public:
  virtual ~ChainedInput() = default;
  // Processes a batch of tuples, an end-of-stream or a close from the upstream task, on the
  // caller's thread.
  virtual void Deliver(Envelope& envelope) = 0;
  // Hands on what the chained task has emitted so far: its upstream flushes it whenever it
  // flushes itself (before it waits for anything).
  virtual void FlushOutput() = 0;
};

// Who is chained to whom in one process, by task id (index 0 unused): `upstream[t]` is the task
// t runs on (0: t is not chained), `input[t]` t's executor once it is built. Filled before any
// task's thread starts, read-only afterwards.
struct ChainTable {
  std::vector<int> upstream;
  std::vector<ChainedInput*> input;
};

// By task id (index 0 unused): the task each task of `running` is chained to, or 0. A task is
// chained when chaining is on, it is a bolt, every tuple it can receive comes from one other
// bolt task of `running`, and that task does not itself hear from just one bolt task of
// `running`: chains are one link long, so a task that runs others is never run by another.
std::vector<int> ChainedUpstreams(const topology::TopologySpec& spec,
                                  const topology::TaskLayout& layout,
                                  const std::vector<int>& running);

}  // namespace tempest::runtime

#pragma once

#include <cstdint>
#include <vector>

#include "topology/task_layout.h"
#include "topology/topology_spec.h"

namespace tempest::runtime {

// Which worker process runs which task: round-robin over the task ids, so task t runs on worker
// (t - 1) mod `workers` (workers are numbered from 0, tasks as in TaskLayout: components in
// sorted id order, each component's tasks consecutive). A component with parallelism p ≥ N thus
// has tasks on every worker, and consecutive components start on different workers. Returns
// worker_of[t] (index 0 unused).
std::vector<int> AssignTasks(const topology::TaskLayout& layout, int workers);
// The tasks of one worker, ascending.
std::vector<int> TasksOfWorker(const std::vector<int>& worker_of, int worker);

// A hash of everything the processes of a run must agree on (components, kinds, classNames,
// parallelism, declared streams and fields, subscriptions and groupings): a worker that loaded a
// different topology is refused at its hello.
uint64_t TopologyFingerprint(const topology::TopologySpec& spec);

}  // namespace tempest::runtime

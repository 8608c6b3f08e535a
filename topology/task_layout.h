#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "topology/topology_spec.h"

namespace tempest::topology {

// The component id of the acker tasks (Storm's system component).
inline constexpr std::string_view kAckerComponent = "__acker";

// How many acker tasks a run of `workers` processes has: topology.acker.executors, or one per
// worker when it is unset (-1).
int AckerTasks(const TopologySpec& spec, int workers);

// The task ids of a topology. As in Storm, tasks are numbered from 1 in the order of the sorted
// component ids, each component's tasks consecutive; so "lowest task id" (global grouping) and
// task indices are the same in every process. The acker tasks (component "__acker") come after
// every component's tasks, so adding ackers never renumbers a user task. Immutable after
// construction.
class TaskLayout {
 public:
  explicit TaskLayout(const TopologySpec& spec, int acker_tasks = 0);

  int task_count() const noexcept { return static_cast<int>(component_of_task_.size()); }
  // Valid ids are 1..task_count().
  bool IsTask(int task) const noexcept { return task >= 1 && task <= task_count(); }
  const std::string& ComponentOf(int task) const { return component_of_task_.at(task - 1); }
  int IndexInComponent(int task) const { return index_of_task_.at(task - 1); }
  // Ascending; empty for an unknown component.
  const std::vector<int>& TasksOf(std::string_view component) const noexcept;
  // The acker tasks, ascending (empty: tuples are acked as they are emitted).
  const std::vector<int>& AckerTaskIds() const noexcept { return TasksOf(kAckerComponent); }
  int acker_count() const noexcept { return acker_count_; }  // no lookup: the hot path's
  bool IsAcker(int task) const noexcept { return task >= first_acker_ && IsTask(task); }
  // The acker task that tracks a tuple tree: fields grouping on the root id, by its bits from
  // kAckerShift up (a spout's roots carry its slot and lane in their low bits,
  // runtime/acking/ack_ids.h).
  static constexpr int kAckerShift = 40;
  static_assert(kAckerShift >= 32);
  int AckerOf(uint64_t root) const noexcept {
    if (acker_count_ == 1) return first_acker_;  // the default: no division per message
    // The bits above kAckerShift fit in 32: a 32-bit division is several times quicker.
    return first_acker_ + static_cast<int>(static_cast<uint32_t>(root >> kAckerShift) %
                                           static_cast<uint32_t>(acker_count_));
  }

 private:
  std::vector<std::string> component_of_task_;
  std::vector<int> index_of_task_;
  std::map<std::string, std::vector<int>, std::less<>> tasks_of_component_;
  int first_acker_ = 0;
  int acker_count_ = 0;
};

}  // namespace tempest::topology

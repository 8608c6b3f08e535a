#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "topology/topology_spec.h"

namespace tempest::topology {

// The task ids of a topology. As in Storm, tasks are numbered from 1 in the order of the sorted
// component ids, each component's tasks consecutive; so "lowest task id" (global grouping) and
// task indices are the same in every process. Immutable after construction.
class TaskLayout {
 public:
  explicit TaskLayout(const TopologySpec& spec);

  int task_count() const noexcept { return static_cast<int>(component_of_task_.size()); }
  // Valid ids are 1..task_count().
  bool IsTask(int task) const noexcept { return task >= 1 && task <= task_count(); }
  const std::string& ComponentOf(int task) const { return component_of_task_.at(task - 1); }
  int IndexInComponent(int task) const { return index_of_task_.at(task - 1); }
  // Ascending; empty for an unknown component.
  const std::vector<int>& TasksOf(std::string_view component) const noexcept;

 private:
  std::vector<std::string> component_of_task_;
  std::vector<int> index_of_task_;
  std::map<std::string, std::vector<int>, std::less<>> tasks_of_component_;
};

}  // namespace tempest::topology

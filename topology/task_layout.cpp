#include "topology/task_layout.h"

#include <algorithm>

namespace tempest::topology {

int AckerTasks(const TopologySpec& spec, int workers) {
  const int configured = spec.config.acker_executors;
  return configured >= 0 ? configured : std::max(1, workers);
}

TaskLayout::TaskLayout(const TopologySpec& spec, int acker_tasks) {
  std::vector<const ComponentSpec*> sorted;
  for (const ComponentSpec& c : spec.components) sorted.push_back(&c);
  std::sort(sorted.begin(), sorted.end(),
            [](const ComponentSpec* a, const ComponentSpec* b) { return a->id < b->id; });
  for (const ComponentSpec* c : sorted) {
    std::vector<int>& tasks = tasks_of_component_[c->id];
    for (int i = 0; i < c->parallelism; ++i) {
      component_of_task_.push_back(c->id);
      index_of_task_.push_back(i);
      tasks.push_back(static_cast<int>(component_of_task_.size()));
    }
  }
  first_acker_ = task_count() + 1;
  acker_count_ = std::max(0, acker_tasks);
  if (acker_count_ == 0) return;
  std::vector<int>& ackers = tasks_of_component_[std::string(kAckerComponent)];
  for (int i = 0; i < acker_count_; ++i) {
    component_of_task_.emplace_back(kAckerComponent);
    index_of_task_.push_back(i);
    ackers.push_back(static_cast<int>(component_of_task_.size()));
  }
}

const std::vector<int>& TaskLayout::TasksOf(std::string_view component) const noexcept {
  static const std::vector<int> kNone;
  auto it = tasks_of_component_.find(component);
  return it == tasks_of_component_.end() ? kNone : it->second;
}

}  // namespace tempest::topology

#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "topology/fields.h"
#include "topology/stream_schema.h"
#include "topology/task_layout.h"
#include "topology/topology_spec.h"

namespace tempest::topology {

// What a task knows about the topology and itself (Storm's TopologyContext). Immutable; the
// topology and layout are shared with every other task of the run.
class TopologyContext {
 public:
  TopologyContext(std::shared_ptr<const TopologySpec> spec,
                  std::shared_ptr<const TaskLayout> layout, int task_id, bool restarted = false,
                  bool worker_process = false);

  int GetThisTaskId() const noexcept { return task_id_; }
  const std::string& GetThisComponentId() const { return layout_->ComponentOf(task_id_); }
  // 0-based position of this task among its component's tasks.
  int GetThisTaskIndex() const { return layout_->IndexInComponent(task_id_); }
  const std::vector<int>& GetThisComponentTasks() const {
    return layout_->TasksOf(GetThisComponentId());
  }

  // Ascending task ids of a component; empty if there is no such component.
  const std::vector<int>& GetComponentTasks(std::string_view component) const noexcept {
    return layout_->TasksOf(component);
  }
  const std::string& GetComponentId(int task) const { return layout_->ComponentOf(task); }
  // Throws std::invalid_argument for an unknown component or stream.
  const Fields& GetComponentOutputFields(std::string_view component,
                                         std::string_view stream = kDefaultStream) const;
  // The streams this component subscribes to.
  std::vector<GlobalStreamId> GetThisSources() const;

  const TopologySpec& GetRawTopology() const noexcept { return *spec_; }
  const TopologyConfig& GetTopologyConfig() const noexcept { return spec_->config; }
  const TaskLayout& GetTaskLayout() const noexcept { return *layout_; }
  // True when this task's worker process was restarted within the run (after a crash): state
  // kept outside the process, such as an output file, should be continued, not started over.
  bool IsRestarted() const noexcept { return restarted_; }
  // True when this task runs in a worker process of a multi-process run, which the supervisor
  // restarts if it dies; false in a one-process run.
  bool IsWorkerProcess() const noexcept { return worker_process_; }

 private:
  std::shared_ptr<const TopologySpec> spec_;
  std::shared_ptr<const TaskLayout> layout_;
  int task_id_;
  bool restarted_;
  bool worker_process_;
};

}  // namespace tempest::topology

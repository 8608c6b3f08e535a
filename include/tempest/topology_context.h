#pragma once

// What a task knows about its topology (part of Tempest's public API, tempest/tempest.h).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tempest/config.h"
#include "tempest/fields.h"
#include "tempest/metrics.h"

namespace tempest::topology {

struct TopologySpec;
class TaskLayout;
class ContextAccess;

// What a task knows about the topology and itself (Storm's TopologyContext). Immutable; shared
// parts are shared with every other task of the run.
class TopologyContext {
 public:
  // `metrics`: where this task's own metrics are kept (a new registry when null).
  TopologyContext(std::shared_ptr<const TopologySpec> spec,
                  std::shared_ptr<const TaskLayout> layout, int task_id, bool restarted = false,
                  bool worker_process = false, std::shared_ptr<MetricRegistry> metrics = nullptr);

  int GetThisTaskId() const noexcept { return task_id_; }
  const std::string& GetThisComponentId() const;
  // 0-based position of this task among its component's tasks.
  int GetThisTaskIndex() const;
  const std::vector<int>& GetThisComponentTasks() const;

  // Ascending task ids of a component; empty if there is no such component.
  const std::vector<int>& GetComponentTasks(std::string_view component) const noexcept;
  const std::string& GetComponentId(int task) const;
  // Throws std::invalid_argument for an unknown component or stream.
  const Fields& GetComponentOutputFields(std::string_view component,
                                         std::string_view stream = kDefaultStream) const;
  // The streams this component subscribes to.
  std::vector<GlobalStreamId> GetThisSources() const;

  // The topology's settings (Storm's keys; users' own keys in `extra`).
  const TopologyConfig& GetTopologyConfig() const noexcept;
  // True when this task's worker process was restarted within the run (after a crash): state
  // kept outside the process, such as an output file, should be continued, not started over.
  bool IsRestarted() const noexcept { return restarted_; }
  // True when this task runs in a worker process of a multi-process run, which the supervisor
  // restarts if it dies; false in a one-process run.
  bool IsWorkerProcess() const noexcept { return worker_process_; }

  // This task's own metrics (Storm's metrics v2), registered in Prepare or Open and updated from
  // the task's thread; exported per task with the built-in ones (docs/metrics.md). The same
  // name again returns the same metric; the same name as another kind throws
  // std::invalid_argument.
  Counter& RegisterCounter(std::string_view name) const { return metrics_->RegisterCounter(name); }
  Meter& RegisterMeter(std::string_view name) const { return metrics_->RegisterMeter(name); }
  Gauge& RegisterGauge(std::string_view name) const { return metrics_->RegisterGauge(name); }
  Histogram& RegisterHistogram(std::string_view name) const {
    return metrics_->RegisterHistogram(name);
  }

 private:
  friend class ContextAccess;  // the runtime's access (topology/topology_context.h)
  std::shared_ptr<const TopologySpec> spec_;
  std::shared_ptr<const TaskLayout> layout_;
  int task_id_;
  bool restarted_;
  bool worker_process_;
  std::shared_ptr<MetricRegistry> metrics_;  // the task's own, shared with its reporters
};

}  // namespace tempest::topology

namespace tempest {
using topology::TopologyContext;
}  // namespace tempest

#include "topology/topology_context.h"

#include <fmt/format.h>

#include <stdexcept>

namespace tempest::topology {

TopologyContext::TopologyContext(std::shared_ptr<const TopologySpec> spec,
                                 std::shared_ptr<const TaskLayout> layout, int task_id,
                                 bool restarted, bool worker_process,
                                 std::shared_ptr<MetricRegistry> metrics)
    : spec_(std::move(spec)),
      layout_(std::move(layout)),
      task_id_(task_id),
      restarted_(restarted),
      worker_process_(worker_process),
      metrics_(metrics ? std::move(metrics) : std::make_shared<MetricRegistry>()) {}

const std::string& TopologyContext::GetThisComponentId() const {
  return layout_->ComponentOf(task_id_);
}

int TopologyContext::GetThisTaskIndex() const { return layout_->IndexInComponent(task_id_); }

const std::vector<int>& TopologyContext::GetThisComponentTasks() const {
  return layout_->TasksOf(GetThisComponentId());
}

const std::vector<int>& TopologyContext::GetComponentTasks(
    std::string_view component) const noexcept {
  return layout_->TasksOf(component);
}

const std::string& TopologyContext::GetComponentId(int task) const {
  return layout_->ComponentOf(task);
}

const TopologyConfig& TopologyContext::GetTopologyConfig() const noexcept { return spec_->config; }

const Fields& TopologyContext::GetComponentOutputFields(std::string_view component,
                                                        std::string_view stream) const {
  const ComponentSpec* c = spec_->Find(component);
  if (c == nullptr) {
    throw std::invalid_argument(
        fmt::format("no component '{}' in topology '{}'", component, spec_->name));
  }
  const StreamSchema* s = c->FindStream(stream);
  if (s == nullptr) {
    throw std::invalid_argument(
        fmt::format("component '{}' declares no stream '{}'", component, stream));
  }
  return *s->fields;
}

std::vector<GlobalStreamId> TopologyContext::GetThisSources() const {
  std::vector<GlobalStreamId> out;
  if (const ComponentSpec* c = spec_->Find(GetThisComponentId())) {
    for (const InputSpec& in : c->inputs) out.push_back(in.source);
  }
  return out;
}

}  // namespace tempest::topology

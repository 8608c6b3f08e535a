#include "runtime/routing/router.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "topology/topology_context.h"
#include "topology/value_hash.h"

namespace tempest::runtime {

using topology::ComponentSpec;
using topology::GroupingType;
using topology::InputSpec;

Router::Router(const topology::TopologyContext& context, const Options& options) {
  const topology::TopologySpec& spec = topology::ContextAccess::Topology(context);
  const std::string& me = context.GetThisComponentId();
  const ComponentSpec* self = spec.Find(me);
  std::set<int> downstream;
  for (const auto& schema : self->streams) {
    OutStream out;
    out.schema = schema.get();
    for (const ComponentSpec& c : spec.components) {
      for (const InputSpec& in : c.inputs) {
        if (in.source.component != me || in.source.stream != schema->stream) continue;
        const std::vector<int>& targets = context.GetComponentTasks(c.id);
        downstream.insert(targets.begin(), targets.end());
        if (in.grouping.type == GroupingType::kDirect) {
          out.direct_tasks.insert(out.direct_tasks.end(), targets.begin(), targets.end());
          continue;
        }
        out.regular_tasks.insert(out.regular_tasks.end(), targets.begin(), targets.end());
        // Each (task, stream, subscriber) gets its own reproducible seed.
        const uint64_t seed =
            topology::StableHash(topology::Values{context.GetThisTaskId(), schema->stream, c.id},
                                 std::array<std::size_t, 3>{0, 1, 2}, options.seed);
        GrouperInput input{&context, in.source,        schema->fields.get(),
                           targets,  options.is_local, seed};
        out.only_task = out.groupers.empty() ? runtime::OnlyTask(in.grouping, targets) : -1;
        out.groupers.push_back(MakeGrouper(in.grouping, std::move(input)));
        if (out.groupers.back()->ReadsValues()) out.routes_without_values = false;
      }
    }
    std::sort(out.direct_tasks.begin(), out.direct_tasks.end());
    std::sort(out.regular_tasks.begin(), out.regular_tasks.end());
    streams_.push_back(std::move(out));
  }
  downstream_.assign(downstream.begin(), downstream.end());
}

int Router::StreamIndex(std::string_view stream) const noexcept {
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    if (streams_[i].schema->stream == stream) return static_cast<int>(i);
  }
  return -1;
}

std::string Router::DeclaredStreams() const {
  std::string out;
  for (const OutStream& s : streams_) {
    if (!out.empty()) out += ", ";
    out += s.schema->stream;
  }
  return "[" + out + "]";
}

bool Router::AcceptsDirect(int stream, int task) const noexcept {
  const std::vector<int>& d = streams_[stream].direct_tasks;
  return std::binary_search(d.begin(), d.end(), task);
}

bool Router::AcceptsRegular(int stream, int task) const noexcept {
  const std::vector<int>& r = streams_[stream].regular_tasks;
  return std::binary_search(r.begin(), r.end(), task);
}

std::vector<int> UpstreamTasks(const topology::TopologySpec& spec,
                               const topology::TaskLayout& layout, int task) {
  const ComponentSpec* self = spec.Find(layout.ComponentOf(task));
  std::set<int> up;
  for (const InputSpec& in : self->inputs) {
    const std::vector<int>& tasks = layout.TasksOf(in.source.component);
    up.insert(tasks.begin(), tasks.end());
  }
  return {up.begin(), up.end()};
}

std::vector<int> DownstreamTasks(const topology::TopologySpec& spec,
                                 const topology::TaskLayout& layout, int task) {
  const std::string& me = layout.ComponentOf(task);
  std::set<int> down;
  for (const ComponentSpec& c : spec.components) {
    for (const InputSpec& in : c.inputs) {
      if (in.source.component != me) continue;
      const std::vector<int>& tasks = layout.TasksOf(c.id);
      down.insert(tasks.begin(), tasks.end());
    }
  }
  return {down.begin(), down.end()};
}

std::vector<int> SourceSpoutTasks(const topology::TopologySpec& spec,
                                  const topology::TaskLayout& layout, int task) {
  std::set<std::string> seen = {layout.ComponentOf(task)};
  std::vector<const ComponentSpec*> to_visit = {spec.Find(layout.ComponentOf(task))};
  std::set<int> spouts;
  while (!to_visit.empty()) {
    const ComponentSpec* c = to_visit.back();
    to_visit.pop_back();
    if (c == nullptr) continue;
    if (c->kind == topology::ComponentKind::kSpout) {
      const std::vector<int>& tasks = layout.TasksOf(c->id);
      spouts.insert(tasks.begin(), tasks.end());
    }
    for (const InputSpec& in : c->inputs) {
      if (seen.insert(in.source.component).second)
        to_visit.push_back(spec.Find(in.source.component));
    }
  }
  return {spouts.begin(), spouts.end()};
}

}  // namespace tempest::runtime

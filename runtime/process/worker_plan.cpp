#include "runtime/process/worker_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>

#include "topology/value_hash.h"

namespace tempest::runtime {

std::vector<int> AssignTasks(const topology::TaskLayout& layout, int workers) {
  std::vector<int> worker_of(layout.task_count() + 1, 0);
  for (int t = 1; t <= layout.task_count(); ++t) worker_of[t] = (t - 1) % workers;
  return worker_of;
}

std::vector<int> TasksOfWorker(const std::vector<int>& worker_of, int worker) {
  std::vector<int> tasks;
  for (std::size_t t = 1; t < worker_of.size(); ++t) {
    if (worker_of[t] == worker) tasks.push_back(static_cast<int>(t));
  }
  return tasks;
}

uint64_t TopologyFingerprint(const topology::TopologySpec& spec) {
  // One line per component, then hashed: order matters, as it does for task ids and streams.
  std::string text = spec.name + "\n";
  for (const topology::ComponentSpec& c : spec.components) {
    fmt::format_to(std::back_inserter(text), "{} {} {} {}",
                   c.kind == topology::ComponentKind::kSpout ? "spout" : "bolt", c.id, c.class_name,
                   c.parallelism);
    for (const auto& s : c.streams) {
      fmt::format_to(std::back_inserter(text), " out {}{}{}", s->stream, s->direct ? "!" : "",
                     s->fields->ToString());
    }
    for (const topology::InputSpec& in : c.inputs) {
      fmt::format_to(std::back_inserter(text), " in {}:{}/{}[{}]", in.source.component,
                     in.source.stream, static_cast<int>(in.grouping.type),
                     fmt::join(in.grouping.fields, ","));
    }
    text += "\n";
  }
  return topology::StableHash(topology::Value(std::move(text)));
}

}  // namespace tempest::runtime

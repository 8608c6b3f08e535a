#include "runtime/queues/chaining.h"

#include <algorithm>

#include "runtime/routing/router.h"

namespace tempest::runtime {

std::vector<int> ChainedUpstreams(const topology::TopologySpec& spec,
                                  const topology::TaskLayout& layout,
                                  const std::vector<int>& running) {
  std::vector<int> out(static_cast<std::size_t>(layout.task_count()) + 1, 0);
  if (!spec.config.chaining) return out;
  const auto runs_here = [&](int task) {
    return std::find(running.begin(), running.end(), task) != running.end();
  };
  const auto is_bolt = [&](int task) {
    if (layout.IsAcker(task)) return false;
    return spec.Find(layout.ComponentOf(task))->kind == topology::ComponentKind::kBolt;
  };
  // The one bolt task of this process each task hears from, if there is exactly one.
  std::vector<int> only_upstream(out.size(), 0);
  for (int task : running) {
    if (!is_bolt(task)) continue;
    const std::vector<int> up = UpstreamTasks(spec, layout, task);
    if (up.size() == 1 && up[0] != task && runs_here(up[0]) && is_bolt(up[0])) {
      only_upstream[task] = up[0];
    }
  }
  for (int task : running) {
    const int up = only_upstream[task];
    if (up != 0 && only_upstream[up] == 0) out[task] = up;
  }
  return out;
}

}  // namespace tempest::runtime

#include "runtime/run_summary.h"

#include <algorithm>
#include <map>

namespace tempest::runtime {

const ComponentSummary* RunSummary::Find(std::string_view id) const noexcept {
  for (const ComponentSummary& c : components) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

RunSummary Summarize(const topology::TopologySpec& spec, const topology::TaskLayout& layout,
                     const std::vector<TaskSnapshot>& tasks) {
  RunSummary summary;
  for (const topology::ComponentSpec& c : spec.components) {
    ComponentSummary cs;
    cs.id = c.id;
    cs.spout = c.kind == topology::ComponentKind::kSpout;
    cs.tasks = static_cast<int>(layout.TasksOf(c.id).size());
    for (const TaskSnapshot& t : tasks) {
      if (t.component != c.id) continue;
      cs.emitted += t.emitted;
      cs.executed += t.executed;
      cs.acked += t.acked;
      cs.failed += t.failed;
      cs.errors += t.errors;
      cs.dropped += t.dropped;
      for (const auto& [cause, n] : t.dropped_by_cause) {
        topology::NamedValue(cs.dropped_by_cause, cause) += n;
      }
      cs.timed_out += t.timed_out;
      cs.replayed += t.replayed;
      cs.pending += t.pending;
      cs.complete_latency.Merge(t.complete_latency);
      for (const auto& [name, value] : t.gauges) {
        auto it = std::find_if(cs.gauges.begin(), cs.gauges.end(),
                               [&name = name](const auto& g) { return g.first == name; });
        if (it == cs.gauges.end()) {
          cs.gauges.emplace_back(name, value);
        } else {
          it->second = CombineGauge(name, it->second, value);
        }
      }
    }
    summary.components.push_back(std::move(cs));
  }
  return summary;
}

void MergeBucketPairs(std::vector<uint64_t>& into, const std::vector<uint64_t>& add) {
  std::map<uint64_t, uint64_t> merged;
  for (std::size_t i = 0; i + 1 < into.size(); i += 2) merged[into[i]] += into[i + 1];
  for (std::size_t i = 0; i + 1 < add.size(); i += 2) merged[add[i]] += add[i + 1];
  into.clear();
  for (const auto& [bucket, count] : merged) {
    into.push_back(bucket);
    into.push_back(count);
  }
}

uint64_t CombineGauge(std::string_view name, uint64_t a, uint64_t b) noexcept {
  if (name == "watermark ms") return std::min(a, b);
  if (name == "watermark lag ms") return std::max(a, b);
  return a + b;
}

}  // namespace tempest::runtime

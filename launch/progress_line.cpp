#include "launch/progress_line.h"

#include <fmt/format.h>

#include <algorithm>

#include "launch/input_progress.h"
#include "launch/rate_text.h"

namespace tempest::launch {

ProgressLine::ProgressLine(const topology::TopologySpec& spec) {
  for (const topology::ComponentSpec& c : spec.components) {
    components_.push_back({c.id, c.kind == topology::ComponentKind::kSpout, 0});
  }
}

std::string ProgressLine::Render(const std::vector<runtime::TaskSnapshot>& tasks, double elapsed) {
  std::vector<uint64_t> totals(components_.size(), 0);
  uint64_t acked = 0, failed = 0, errors = 0, dropped = 0;
  for (const runtime::TaskSnapshot& t : tasks) {
    errors += t.errors;
    const auto it = std::find_if(components_.begin(), components_.end(),
                                 [&](const Component& c) { return c.id == t.component; });
    if (it == components_.end()) continue;  // the ackers
    const auto i = static_cast<std::size_t>(it - components_.begin());
    totals[i] += it->spout ? t.emitted : t.executed;
    dropped += t.dropped;
    if (it->spout) {
      acked += t.acked;
      failed += t.failed;
    }
  }
  const double dt = elapsed > last_elapsed_ ? elapsed - last_elapsed_ : 1;
  std::string line = fmt::format("progress {:.1f} s:", elapsed);
  for (std::size_t i = 0; i < components_.size(); ++i) {
    Component& c = components_[i];
    const uint64_t delta = totals[i] >= c.last ? totals[i] - c.last : 0;  // a restarted worker
    line +=
        fmt::format("{} {} {} {} ({})", i == 0 ? "" : ";", c.id, c.spout ? "emitted" : "executed",
                    totals[i], RateText(static_cast<double>(delta) / dt));
    c.last = totals[i];
  }
  line += fmt::format("; trees acked {}, failed {}; errors {}", acked, failed, errors);
  if (dropped > 0) line += fmt::format("; dropped {}", dropped);
  if (const InputProgress input = InputProgress::Of(tasks); input.total > 0) {
    line += "; input " + input.Text(elapsed);
  }
  last_elapsed_ = elapsed;
  return line;
}

}  // namespace tempest::launch

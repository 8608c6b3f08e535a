#include "launch/run_display.h"

#include <fmt/format.h>

#include <algorithm>

#include "launch/input_progress.h"
#include "launch/rate_text.h"

namespace tempest::launch {

std::string RunDisplay::Render(const std::vector<runtime::TaskSnapshot>& tasks, double seconds,
                               double elapsed) {
  std::vector<Totals> now;
  for (const runtime::TaskSnapshot& t : tasks) {
    auto it = std::find_if(now.begin(), now.end(),
                           [&](const Totals& x) { return x.component == t.component; });
    if (it == now.end()) it = now.insert(now.end(), Totals{t.component, 0, 0});
    it->in += t.executed;
    it->out += t.emitted;
  }
  std::string text;
  for (const Totals& c : now) {
    uint64_t last_in = 0, last_out = 0;
    for (const Totals& l : last_) {
      if (l.component == c.component) {
        last_in = l.in;
        last_out = l.out;
      }
    }
    const double dt = seconds > 0 ? seconds : 1;
    text += fmt::format("  {:<16} in {:>10} out {:>10}   total in {:>12} out {:>12}\n", c.component,
                        RateText(static_cast<double>(c.in - last_in) / dt),
                        RateText(static_cast<double>(c.out - last_out) / dt), c.in, c.out);
  }
  if (const InputProgress input = InputProgress::Of(tasks); input.total > 0) {
    text += fmt::format("  input {} {}\n", input.Bar(30), input.Text(elapsed));
  }
  last_ = std::move(now);
  return text;
}

std::string RunDisplay::SummaryTable(const runtime::RunSummary& summary) {
  std::string out = fmt::format("{:<16} {:>5} {:>12} {:>12} {:>12} {:>9} {:>7}\n", "component",
                                "tasks", "emitted", "executed", "acked", "failed", "errors");
  for (const runtime::ComponentSummary& c : summary.components) {
    out += fmt::format("{:<16} {:>5} {:>12} {:>12} {:>12} {:>9} {:>7}\n", c.id, c.tasks, c.emitted,
                       c.executed, c.acked, c.failed, c.errors);
  }
  // Bolts that dropped inputs on purpose (late tuples without a late stream), by cause; spouts
  // that gave tuples up.
  for (const runtime::ComponentSummary& c : summary.components) {
    if (c.dropped == 0) continue;
    if (c.spout) {
      out +=
          fmt::format("{}: {} tuples given up after topology.spout.max.retries\n", c.id, c.dropped);
      continue;
    }
    std::string causes;
    for (const auto& [cause, n] : c.dropped_by_cause) {
      causes += fmt::format("{}{} {}", causes.empty() ? "" : ", ", cause, n);
    }
    out += fmt::format("{}: {} inputs dropped ({})\n", c.id, c.dropped, causes);
  }
  // Bolts that reported gauges (ReportGauge), each summed over the component's tasks.
  for (const runtime::ComponentSummary& c : summary.components) {
    if (c.gauges.empty()) continue;
    std::string line;
    for (const auto& [name, value] : c.gauges) {
      line += fmt::format("{}{} {}", line.empty() ? "" : ", ", name, value);
    }
    out += fmt::format("{}: {}\n", c.id, line);
  }
  // Bolts that failed tuples unexecuted: they had waited in the queue past the message timeout.
  for (const runtime::ComponentSummary& c : summary.components) {
    if (c.spout || c.timed_out == 0) continue;
    out += fmt::format(
        "{}: {} inputs failed unexecuted (they waited longer than the message timeout)\n", c.id,
        c.timed_out);
  }
  // Spouts whose tuples were tracked (acker tasks ran): what became of their tuple trees.
  for (const runtime::ComponentSummary& c : summary.components) {
    if (!c.spout) continue;
    if (c.complete_latency.Total() == 0 && c.timed_out == 0 && c.replayed == 0 && c.pending == 0) {
      continue;
    }
    out += fmt::format(
        "{}: {} trees acked, {} failed ({} timed out), {} replayed, {} pending; complete latency "
        "p50 {} us, p99 {} us\n",
        c.id, c.acked, c.failed, c.timed_out, c.replayed, c.pending,
        c.complete_latency.Quantile(0.5), c.complete_latency.Quantile(0.99));
  }
  if (summary.workers > 1) {
    out += fmt::format("{} worker processes, {} restarted, {} bad frames dropped\n",
                       summary.workers, summary.restarts, summary.dropped_frames);
  }
  out += fmt::format("finished in {:.3f} s\n", summary.seconds);
  return out;
}

}  // namespace tempest::launch

#include "launch/prometheus_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "runtime/acking/latency_histogram.h"

namespace tempest::launch {
namespace {

// A label value with \, " and newlines escaped, as the format requires.
std::string Escaped(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

struct Family {
  const char* name;
  const char* type;
  const char* help;
  uint64_t runtime::TaskSnapshot::*field;
};

constexpr Family kFamilies[] = {
    {"tempest_emitted_total", "counter", "Tuples emitted.", &runtime::TaskSnapshot::emitted},
    {"tempest_executed_total", "counter", "Tuples executed (bolts).",
     &runtime::TaskSnapshot::executed},
    {"tempest_acked_total", "counter", "Tuples acked (bolts); tuple trees completed (spouts).",
     &runtime::TaskSnapshot::acked},
    {"tempest_failed_total", "counter", "Tuples failed (bolts); tuple trees failed (spouts).",
     &runtime::TaskSnapshot::failed},
    {"tempest_errors_total", "counter", "Errors reported or caught.",
     &runtime::TaskSnapshot::errors},
    {"tempest_dropped_total", "counter",
     "Inputs dropped on purpose (bolts); tuples given up after the retries (spouts).",
     &runtime::TaskSnapshot::dropped},
    {"tempest_timed_out_total", "counter",
     "Tuple trees timed out (spouts); inputs failed unexecuted after the message timeout "
     "(bolts).",
     &runtime::TaskSnapshot::timed_out},
    {"tempest_replayed_total", "counter", "Failed tuples emitted again (spouts).",
     &runtime::TaskSnapshot::replayed},
    {"tempest_pending", "gauge", "Tracked tuple trees not decided yet (spouts).",
     &runtime::TaskSnapshot::pending},
};

// A latency histogram's buckets at every power of two of its unit from 16 (the 8 finer buckets
// of each power merged); latencies are whole units (µs or ns), so "below
// 2^k" is le = 2^k - 1. The sum is approximate: each latency counts as its bucket's lower bound.
// `per_second`: units in a second (1e6 for µs, 1e9 for ns).
void AppendLatency(std::string& out, std::string_view name, const std::string& labels,
                   const runtime::LatencyCounts& latency, double per_second) {
  uint64_t cumulative = 0;
  double sum_seconds = 0;
  for (int b = 0; b < runtime::LatencyBuckets::kCount; ++b) {
    const uint64_t n = b < static_cast<int>(latency.counts.size()) ? latency.counts[b] : 0;
    cumulative += n;
    sum_seconds += static_cast<double>(n) * static_cast<double>(runtime::LatencyBuckets::Lower(b)) /
                   per_second;
    const bool power_edge = b >= 15 && (b - 15) % 8 == 0;  // the next bucket starts a power
    if (power_edge && b + 1 < runtime::LatencyBuckets::kCount) {
      const double le = static_cast<double>(runtime::LatencyBuckets::Lower(b + 1) - 1) / per_second;
      out += fmt::format("{}_bucket{{{},le=\"{}\"}} {}\n", name, labels, le, cumulative);
    }
  }
  out += fmt::format("{}_bucket{{{},le=\"+Inf\"}} {}\n", name, labels, cumulative);
  out += fmt::format("{}_sum{{{}}} {}\n", name, labels, sum_seconds);
  out += fmt::format("{}_count{{{}}} {}\n", name, labels, cumulative);
}

// The tasks' own metrics of the given kinds, as one family with a `name` label (and `kind` when
// it holds two).
void AppendUserMetrics(std::string& out, const std::vector<runtime::TaskSnapshot>& tasks,
                       const std::vector<std::string>& labels,
                       std::initializer_list<topology::MetricReading::Kind> kinds,
                       std::string_view family, std::string_view type, std::string_view help) {
  using Kind = topology::MetricReading::Kind;
  std::string samples;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    for (const topology::MetricReading& m : tasks[i].user_metrics) {
      if (std::find(kinds.begin(), kinds.end(), m.kind) == kinds.end()) continue;
      std::string l = fmt::format("{},name=\"{}\"", labels[i], Escaped(m.name));
      if (kinds.size() > 1) l += m.kind == Kind::kCounter ? ",kind=\"counter\"" : ",kind=\"gauge\"";
      if (m.kind != Kind::kHistogram) {
        samples += fmt::format("{}{{{}}} {}\n", family, l, m.value);
        continue;
      }
      uint64_t cumulative = 0;
      for (std::size_t b = 0; b + 1 < m.buckets.size(); b += 2) {
        cumulative += m.buckets[b + 1];
        samples +=
            fmt::format("{}_bucket{{{},le=\"{}\"}} {}\n", family, l,
                        topology::Histogram::Upper(static_cast<int>(m.buckets[b])), cumulative);
      }
      samples += fmt::format("{}_bucket{{{},le=\"+Inf\"}} {}\n", family, l, cumulative);
      samples += fmt::format("{}_sum{{{}}} {}\n", family, l, m.value);
      samples += fmt::format("{}_count{{{}}} {}\n", family, l, cumulative);
    }
  }
  if (samples.empty()) return;
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", family, help, family, type);
  out += samples;
}

// The worker processes of a run with several.
void AppendWorkers(std::string& out, const std::string& topology,
                   const std::vector<runtime::WorkerStatus>& workers) {
  const auto family = [&](const char* name, const char* type, const char* help, auto value) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
    for (const runtime::WorkerStatus& w : workers) {
      out += fmt::format("{}{{topology=\"{}\",worker=\"{}\"}} {}\n", name, topology, w.index,
                         value(w));
    }
  };
  family("tempest_worker_up", "gauge",
         "Whether the worker process runs (0 between a crash and its restart, and after it "
         "ended).",
         [](const runtime::WorkerStatus& w) { return w.running ? 1 : 0; });
  family("tempest_worker_restarts_total", "counter",
         "Times the worker process was restarted after a crash or a hang.",
         [](const runtime::WorkerStatus& w) { return w.restarts; });
  family("tempest_dropped_frames_total", "counter",
         "Malformed or misaddressed frames the worker received, counted and dropped.",
         [](const runtime::WorkerStatus& w) { return w.dropped_frames; });
}

}  // namespace

std::string PrometheusText(const topology::TopologySpec& spec,
                           const std::vector<runtime::TaskSnapshot>& tasks,
                           const std::vector<runtime::WorkerStatus>& workers) {
  std::vector<std::string> labels;
  std::vector<bool> spout;
  for (const runtime::TaskSnapshot& t : tasks) {
    labels.push_back(fmt::format("topology=\"{}\",component=\"{}\",task=\"{}\"", Escaped(spec.name),
                                 Escaped(t.component), t.task));
    const topology::ComponentSpec* c = spec.Find(t.component);
    spout.push_back(c != nullptr && c->kind == topology::ComponentKind::kSpout);
  }
  std::string out;
  for (const Family& f : kFamilies) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", f.name, f.help, f.name, f.type);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      out += fmt::format("{}{{{}}} {}\n", f.name, labels[i], tasks[i].*f.field);
    }
  }
  out +=
      "# HELP tempest_queue_high_water Most tuples ever queued for the task.\n"
      "# TYPE tempest_queue_high_water gauge\n";
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    out += fmt::format("tempest_queue_high_water{{{}}} {}\n", labels[i], tasks[i].queue_high_water);
  }
  out +=
      "# HELP tempest_queue_size Tuples queued for the task now.\n"
      "# TYPE tempest_queue_size gauge\n";
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    out += fmt::format("tempest_queue_size{{{}}} {}\n", labels[i], tasks[i].queue_size);
  }
  out +=
      "# HELP tempest_queue_capacity Tuples the task's queue holds before its producers wait.\n"
      "# TYPE tempest_queue_capacity gauge\n";
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    out += fmt::format("tempest_queue_capacity{{{}}} {}\n", labels[i], tasks[i].queue_capacity);
  }
  out +=
      "# HELP tempest_task_gauge The gauges a task reports (ReportGauge), by name.\n"
      "# TYPE tempest_task_gauge gauge\n";
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    for (const auto& [name, value] : tasks[i].gauges) {
      out +=
          fmt::format("tempest_task_gauge{{{},name=\"{}\"}} {}\n", labels[i], Escaped(name), value);
    }
  }
  out +=
      "# HELP tempest_dropped_by_cause_total The dropped tuples by cause (late, no_timestamp, "
      "max_retries, ...); per task they add up to tempest_dropped_total.\n"
      "# TYPE tempest_dropped_by_cause_total counter\n";
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    for (const auto& [cause, n] : tasks[i].dropped_by_cause) {
      out += fmt::format("tempest_dropped_by_cause_total{{{},cause=\"{}\"}} {}\n", labels[i],
                         Escaped(cause), n);
    }
  }
  out +=
      "# HELP tempest_complete_latency_seconds From a spout's emit to its tuple tree's "
      "completion.\n"
      "# TYPE tempest_complete_latency_seconds histogram\n";
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (spout[i]) {
      AppendLatency(out, "tempest_complete_latency_seconds", labels[i], tasks[i].complete_latency,
                    1e6);
    }
  }
  out +=
      "# HELP tempest_execute_latency_seconds A bolt's Execute time per tuple (one tuple in 32; "
      "a batch bolt's time per row of every batch).\n"
      "# TYPE tempest_execute_latency_seconds histogram\n";
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (!spout[i] && tasks[i].component != topology::kAckerComponent) {
      AppendLatency(out, "tempest_execute_latency_seconds", labels[i], tasks[i].execute_latency,
                    1e9);
    }
  }
  using Kind = topology::MetricReading::Kind;
  AppendUserMetrics(out, tasks, labels, {Kind::kCounter, Kind::kGauge}, "tempest_user_metric",
                    "gauge",
                    "The components' own counters and gauges (RegisterCounter, RegisterGauge), by "
                    "name and kind.");
  AppendUserMetrics(out, tasks, labels, {Kind::kMeter}, "tempest_user_events_total", "counter",
                    "The components' own meters (RegisterMeter), by name.");
  AppendUserMetrics(out, tasks, labels, {Kind::kHistogram}, "tempest_user_distribution",
                    "histogram", "The components' own histograms (RegisterHistogram), by name.");
  if (!workers.empty()) AppendWorkers(out, Escaped(spec.name), workers);
  return out;
}

}  // namespace tempest::launch

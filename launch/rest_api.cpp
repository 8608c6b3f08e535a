#include "launch/rest_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "runtime/acking/latency_histogram.h"
#include "topology/named_counts.h"

namespace tempest::launch {
namespace {

using nlohmann::json;

// {name: value, ...}.
json ByName(const topology::NamedCounts& counts) {
  json j = json::object();
  for (const auto& [name, n] : counts) j[name] = n;
  return j;
}

// A component's tasks' counters added up.
struct Totals {
  int tasks = 0;
  uint64_t emitted = 0, executed = 0, acked = 0, failed = 0, errors = 0, dropped = 0;
  uint64_t timed_out = 0, replayed = 0, pending = 0;
  runtime::LatencyCounts complete_latency;
  runtime::LatencyCounts execute_latency;  // ns
  json gauges = json::object();
  topology::NamedCounts dropped_by_cause;
  std::vector<topology::MetricReading> metrics;  // the tasks' own, each name's combined

  void Add(const runtime::TaskSnapshot& t) {
    ++tasks;
    emitted += t.emitted;
    executed += t.executed;
    acked += t.acked;
    failed += t.failed;
    errors += t.errors;
    dropped += t.dropped;
    for (const auto& [cause, n] : t.dropped_by_cause) {
      topology::NamedValue(dropped_by_cause, cause) += n;
    }
    timed_out += t.timed_out;
    replayed += t.replayed;
    pending += t.pending;
    complete_latency.Merge(t.complete_latency);
    execute_latency.Merge(t.execute_latency);
    for (const topology::MetricReading& m : t.user_metrics) AddMetric(m);
    for (const auto& [name, value] : t.gauges) {
      gauges[name] = gauges.contains(name)
                         ? runtime::CombineGauge(name, gauges[name].get<uint64_t>(), value)
                         : value;
    }
  }

  // Counts, meters and histograms add up over the tasks; gauges too (a component's total, as
  // its rows held).
  void AddMetric(const topology::MetricReading& m) {
    auto it = std::find_if(metrics.begin(), metrics.end(), [&](const topology::MetricReading& x) {
      return x.name == m.name && x.kind == m.kind;
    });
    if (it == metrics.end()) {
      metrics.push_back(m);
      return;
    }
    it->value += m.value;
    runtime::MergeBucketPairs(it->buckets, m.buckets);
  }
};

// A histogram's q-quantile from (bucket, count) pairs, as its bucket's upper bound.
uint64_t HistogramQuantile(const std::vector<uint64_t>& pairs, double q) {
  uint64_t total = 0;
  for (std::size_t i = 1; i < pairs.size(); i += 2) total += pairs[i];
  if (total == 0) return 0;
  uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(total - 1)) + 1;
  for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
    if (pairs[i + 1] >= rank) return topology::Histogram::Upper(static_cast<int>(pairs[i]));
    rank -= pairs[i + 1];
  }
  return 0;
}

// The components' own metrics: {"NAME": {"type", "value"}}; a histogram's with its count, sum and
// p50 / p99 (each its bucket's upper bound).
json MetricsJson(const std::vector<topology::MetricReading>& metrics) {
  json out = json::object();
  for (const topology::MetricReading& m : metrics) {
    json j = {{"type", topology::MetricReading::KindName(m.kind)}};
    if (m.kind == topology::MetricReading::Kind::kHistogram) {
      uint64_t count = 0;
      for (std::size_t i = 1; i < m.buckets.size(); i += 2) count += m.buckets[i];
      j["count"] = count;
      j["sum"] = m.value;
      j["p50"] = HistogramQuantile(m.buckets, 0.5);
      j["p99"] = HistogramQuantile(m.buckets, 0.99);
    } else {
      j["value"] = m.value;
    }
    out[m.name] = std::move(j);
  }
  return out;
}

Totals TotalsOf(const RunView& run, std::string_view component) {
  Totals totals;
  for (const runtime::TaskSnapshot& t : run.tasks) {
    if (t.component == component) totals.Add(t);
  }
  return totals;
}

// Storm UI's latency fields for a histogram whose unit is 1/`per_ms` ms (µs: 1000, ns: 1e6):
// PREFIX (the mean in ms, a string with three decimals as Storm writes it), PREFIXP50Ms and
// PREFIXP99Ms; each latency counts as its bucket's lower bound.
json LatencyFields(const runtime::LatencyCounts& latency, const std::string& prefix,
                   double per_ms) {
  uint64_t n = 0;
  double sum = 0;
  for (std::size_t b = 0; b < latency.counts.size(); ++b) {
    n += latency.counts[b];
    sum += static_cast<double>(latency.counts[b]) *
           static_cast<double>(runtime::LatencyBuckets::Lower(static_cast<int>(b)));
  }
  return {{prefix, fmt::format("{:.3f}", n == 0 ? 0.0 : sum / static_cast<double>(n) / per_ms)},
          {prefix + "P50Ms", static_cast<double>(latency.Quantile(0.5)) / per_ms},
          {prefix + "P99Ms", static_cast<double>(latency.Quantile(0.99)) / per_ms}};
}

// A spout's complete latency (µs) and a bolt's execute latency (ns, sampled).
json LatencyFields(const runtime::LatencyCounts& micros) {
  return LatencyFields(micros, "completeLatency", 1000.0);
}
json ExecuteLatencyFields(const runtime::LatencyCounts& nanos) {
  return LatencyFields(nanos, "executeLatency", 1e6);
}

int TaskCount(const RunView& run) {
  int n = 0;
  for (const topology::ComponentSpec& c : run.spec->components) n += c.parallelism;
  return n;
}

json Summary(const RunView& run) {
  return {
      {"id", run.spec->name},         {"name", run.spec->name},
      {"status", run.status},         {"uptimeSeconds", static_cast<int64_t>(run.uptime_seconds)},
      {"tasksTotal", TaskCount(run)}, {"executorsTotal", TaskCount(run)},
      {"workersTotal", run.workers}};
}

// The latest error of each task of `component` (all components when empty) that had one,
// newest first: Storm UI's componentErrors, with the task.
json ErrorsOf(const RunView& run, std::string_view component = {}) {
  std::vector<const runtime::TaskSnapshot*> tasks;
  for (const runtime::TaskSnapshot& t : run.tasks) {
    if (!t.last_error.empty() && (component.empty() || t.component == component)) {
      tasks.push_back(&t);
    }
  }
  std::sort(tasks.begin(), tasks.end(),
            [](const auto* a, const auto* b) { return a->last_error_ms > b->last_error_ms; });
  json errors = json::array();
  for (const runtime::TaskSnapshot* t : tasks) {
    errors.push_back({{"component", t->component},
                      {"task", t->task},
                      {"time", t->last_error_ms},
                      {"error", t->last_error}});
  }
  return errors;
}

// The streams a bolt subscribes to, with their groupings (the graph's edges).
json InputsOf(const topology::ComponentSpec& c) {
  json inputs = json::array();
  for (const topology::InputSpec& in : c.inputs) {
    json j = {{"component", in.source.component},
              {"stream", in.source.stream},
              {"grouping", topology::GroupingTypeName(in.grouping.type)}};
    if (!in.grouping.fields.empty()) j["fields"] = in.grouping.fields;
    inputs.push_back(std::move(j));
  }
  return inputs;
}

json WorkersOf(const RunView& run) {
  json workers = json::array();
  for (const runtime::WorkerStatus& w : run.worker_status) {
    workers.push_back({{"index", w.index},
                       {"pid", w.pid},
                       {"running", w.running},
                       {"restarts", w.restarts},
                       {"tasks", w.tasks},
                       {"droppedFrames", w.dropped_frames}});
  }
  return workers;
}

json SpoutEntry(const topology::ComponentSpec& c, const Totals& t) {
  json j = {{"spoutId", c.id},
            {"tasks", t.tasks},
            {"executors", t.tasks},
            {"emitted", t.emitted},
            {"acked", t.acked},
            {"failed", t.failed},
            {"errors", t.errors},
            {"timedOut", t.timed_out},
            {"replayed", t.replayed},
            {"pending", t.pending},
            {"givenUp", t.dropped},
            {"gauges", t.gauges},
            {"droppedByCause", ByName(t.dropped_by_cause)}};
  j.update(LatencyFields(t.complete_latency));
  j["metrics"] = MetricsJson(t.metrics);
  return j;
}

json BoltEntry(const topology::ComponentSpec& c, const Totals& t) {
  json j = {{"boltId", c.id},
            {"tasks", t.tasks},
            {"executors", t.tasks},
            {"emitted", t.emitted},
            {"executed", t.executed},
            {"acked", t.acked},
            {"failed", t.failed},
            {"errors", t.errors},
            {"dropped", t.dropped},
            {"gauges", t.gauges},
            {"droppedByCause", ByName(t.dropped_by_cause)}};
  j.update(ExecuteLatencyFields(t.execute_latency));
  j["metrics"] = MetricsJson(t.metrics);
  return j;
}

json Topology(const RunView& run) {
  json j = Summary(run);
  json spouts = json::array(), bolts = json::array();
  Totals all_spouts;
  for (const topology::ComponentSpec& c : run.spec->components) {
    const Totals t = TotalsOf(run, c.id);
    if (c.kind == topology::ComponentKind::kSpout) {
      spouts.push_back(SpoutEntry(c, t));
      for (const runtime::TaskSnapshot& s : run.tasks) {
        if (s.component == c.id) all_spouts.Add(s);
      }
    } else {
      json bolt = BoltEntry(c, t);
      bolt["inputs"] = InputsOf(c);
      bolts.push_back(std::move(bolt));
    }
  }
  json stats = {{"window", ":all-time"},
                {"emitted", all_spouts.emitted},
                {"acked", all_spouts.acked},
                {"failed", all_spouts.failed}};
  stats.update(LatencyFields(all_spouts.complete_latency));
  j["topologyStats"] = json::array({stats});
  j["spouts"] = std::move(spouts);
  j["bolts"] = std::move(bolts);
  j["workers"] = WorkersOf(run);
  j["errors"] = ErrorsOf(run);
  return j;
}

json Component(const RunView& run, const topology::ComponentSpec& c) {
  const bool spout = c.kind == topology::ComponentKind::kSpout;
  json executors = json::array();
  for (const runtime::TaskSnapshot& t : run.tasks) {
    if (t.component != c.id) continue;
    json e = {{"id", fmt::format("[{}-{}]", t.task, t.task)},
              {"task", t.task},
              {"emitted", t.emitted},
              {"acked", t.acked},
              {"failed", t.failed},
              {"errors", t.errors},
              {"queueHighWater", t.queue_high_water},
              {"queueSize", t.queue_size},
              {"queueCapacity", t.queue_capacity},
              {"finished", t.finished},
              {"droppedByCause", ByName(t.dropped_by_cause)}};
    if (spout) {
      e["pending"] = t.pending;
      e.update(LatencyFields(t.complete_latency));
    } else {
      e["executed"] = t.executed;
      e["dropped"] = t.dropped;
      e.update(ExecuteLatencyFields(t.execute_latency));
    }
    executors.push_back(std::move(e));
  }
  const Totals totals = TotalsOf(run, c.id);
  json j = spout ? SpoutEntry(c, totals) : BoltEntry(c, totals);
  j["id"] = c.id;
  j["name"] = c.id;
  j["topologyId"] = run.spec->name;
  j["componentType"] = spout ? "spout" : "bolt";
  j["executorStats"] = std::move(executors);
  j["componentErrors"] = ErrorsOf(run, c.id);
  if (!spout) j["inputs"] = InputsOf(c);
  return j;
}

}  // namespace

std::optional<std::string> RestAnswer(std::string_view target, const RunView& run) {
  constexpr std::string_view kTopology = "/api/v1/topology/";
  target = target.substr(0, target.find('?'));  // Storm UI's ?window=… and the like
  if (!target.starts_with(kTopology)) return std::nullopt;
  std::string_view rest = target.substr(kTopology.size());
  if (rest == "summary") return json{{"topologies", json::array({Summary(run)})}}.dump();
  const std::size_t slash = rest.find('/');
  if (DecodedPathSegment(rest.substr(0, slash)) != run.spec->name) return std::nullopt;
  if (slash == std::string_view::npos) return Topology(run).dump();
  rest = rest.substr(slash);
  constexpr std::string_view kComponent = "/component/";
  if (!rest.starts_with(kComponent)) return std::nullopt;
  const topology::ComponentSpec* c =
      run.spec->Find(DecodedPathSegment(rest.substr(kComponent.size())));
  if (c == nullptr) return std::nullopt;
  return Component(run, *c).dump();
}

std::string DecodedPathSegment(std::string_view segment) {
  std::string out;
  for (std::size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] == '%' && i + 2 < segment.size() &&
        std::isxdigit(static_cast<unsigned char>(segment[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(segment[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(segment.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += segment[i];
    }
  }
  return out;
}

}  // namespace tempest::launch

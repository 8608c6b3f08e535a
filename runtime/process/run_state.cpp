#include "runtime/process/run_state.h"

#include <algorithm>
#include <utility>

#include "topology/named_counts.h"

namespace tempest::runtime {

using transport::TaskCounters;

void WorkerCounters::Update(const transport::ControlMessage& message) {
  for (const TaskCounters& c : message.tasks) current_[c.task] = c;
  dropped_current_ = message.dropped_frames;
}

void WorkerCounters::CarryOver() {
  for (const auto& [task, c] : current_) {
    AddCounters(carried_[task], c);
    carried_[task].pending = 0;  // the dead incarnation's pending tuples will be replayed
  }
  current_.clear();
  dropped_carried_ += dropped_current_;
  dropped_current_ = 0;
}

TaskCounters WorkerCounters::Of(int task) const {
  TaskCounters c;
  c.task = task;
  if (auto it = carried_.find(task); it != carried_.end()) AddCounters(c, it->second);
  if (auto it = current_.find(task); it != current_.end()) AddCounters(c, it->second);
  return c;
}

namespace {

// A task's own metric across its incarnations: counts and histograms add up (a restarted task
// counts from 0 again), a gauge is the latest incarnation's.
void MergeMetric(std::vector<topology::MetricReading>& into, const topology::MetricReading& m) {
  auto it = std::find_if(into.begin(), into.end(), [&](const topology::MetricReading& x) {
    return x.name == m.name && x.kind == m.kind;
  });
  if (it == into.end()) {
    into.push_back(m);
  } else if (m.kind == topology::MetricReading::Kind::kGauge) {
    it->value = m.value;
  } else {
    it->value += m.value;
    MergeBucketPairs(it->buckets, m.buckets);
  }
}

}  // namespace

void AddCounters(TaskCounters& into, const TaskCounters& c) {
  into.task = c.task;
  into.emitted += c.emitted;
  into.executed += c.executed;
  into.acked += c.acked;
  into.failed += c.failed;
  into.errors += c.errors;
  into.dropped += c.dropped;
  for (const auto& [cause, n] : c.dropped_by_cause) {
    topology::NamedValue(into.dropped_by_cause, cause) += n;
  }
  into.queue_high_water = std::max(into.queue_high_water, c.queue_high_water);
  into.blocked_pushes += c.blocked_pushes;
  into.timed_out += c.timed_out;
  into.replayed += c.replayed;
  into.pending += c.pending;
  // Gauges are levels, not counts: a later incarnation's value replaces an earlier one's (a
  // gauge it has not reported yet keeps the dead incarnation's last value).
  for (const auto& [name, value] : c.gauges) topology::NamedValue(into.gauges, name) = value;
  if (!c.last_error.empty() && c.last_error_ms >= into.last_error_ms) {
    into.last_error = c.last_error;
    into.last_error_ms = c.last_error_ms;
  }
  MergeBucketPairs(into.latency, c.latency);
  MergeBucketPairs(into.execute_latency, c.execute_latency);
  into.queue_size = c.queue_size;  // a level: the latest incarnation's
  into.queue_capacity = c.queue_capacity;
  for (const topology::MetricReading& m : c.user_metrics) MergeMetric(into.user_metrics, m);
}

// (bucket, count) pairs into a histogram's counts; buckets out of range are ignored.
static void AddPairs(LatencyCounts& into, const std::vector<uint64_t>& pairs) {
  for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
    if (pairs[i] < into.counts.size()) into.counts[pairs[i]] += pairs[i + 1];
  }
}

TaskSnapshot SnapshotOf(const TaskCounters& c, std::string component, bool finished) {
  TaskSnapshot s;
  s.task = c.task;
  s.component = std::move(component);
  s.emitted = c.emitted;
  s.executed = c.executed;
  s.acked = c.acked;
  s.failed = c.failed;
  s.errors = c.errors;
  s.dropped = c.dropped;
  s.dropped_by_cause = c.dropped_by_cause;
  s.timed_out = c.timed_out;
  s.replayed = c.replayed;
  s.pending = c.pending;
  AddPairs(s.complete_latency, c.latency);
  AddPairs(s.execute_latency, c.execute_latency);
  s.queue_size = c.queue_size;
  s.queue_capacity = c.queue_capacity;
  s.user_metrics = c.user_metrics;
  s.queue_high_water = c.queue_high_water;
  s.blocked_pushes = c.blocked_pushes;
  s.gauges = c.gauges;
  s.last_error = c.last_error;
  s.last_error_ms = c.last_error_ms;
  s.finished = finished;
  return s;
}

void PublishedStatus::Publish(std::vector<TaskSnapshot> tasks, std::vector<WorkerStatus> workers,
                              int starts) {
  std::sort(tasks.begin(), tasks.end(),
            [](const TaskSnapshot& a, const TaskSnapshot& b) { return a.task < b.task; });
  {
    std::lock_guard lock(mu_);
    status_.tasks = std::move(tasks);
    status_.workers = std::move(workers);
    status_.starts = starts;
  }
  cv_.notify_all();
}

void PublishedStatus::MarkEnded() {
  {
    std::lock_guard lock(mu_);
    status_.ended = true;
  }
  cv_.notify_all();
}

std::vector<TaskSnapshot> PublishedStatus::Tasks() const {
  std::lock_guard lock(mu_);
  return status_.tasks;
}

std::vector<WorkerStatus> PublishedStatus::Workers() const {
  std::lock_guard lock(mu_);
  return status_.workers;
}

bool PublishedStatus::WaitFor(const std::function<bool(const ClusterStatus&)>& ready,
                              std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return ready(status_); });
}

void PublishedStatus::Wait(const std::function<bool(const ClusterStatus&)>& ready) const {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return ready(status_); });
}

}  // namespace tempest::runtime

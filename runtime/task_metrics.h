#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/acking/latency_histogram.h"
#include "tempest/metrics.h"
#include "topology/named_counts.h"

namespace tempest::runtime {

// Live counters of one task. Written only by the task's own thread (plain relaxed load+store,
// no locked instructions on the hot path); read by anyone at any time.
struct TaskMetrics {
  std::atomic<uint64_t> emitted{0};   // emit calls
  std::atomic<uint64_t> executed{0};  // input tuples executed (bolts)
  std::atomic<uint64_t> acked{0};     // spouts: message ids acked; bolts: inputs acked
  std::atomic<uint64_t> failed{0};    // spouts: message ids failed; bolts: inputs failed
  std::atomic<uint64_t> errors{0};    // exceptions thrown by user code, ReportError calls
  // bolts: inputs dropped on purpose (ReportDropped); spouts: message ids given up after
  // topology.spout.max.retries replays. Bumped through AddDropped, which keeps the cause.
  std::atomic<uint64_t> dropped{0};
  // Spouts only:
  // Spouts: message ids failed because their tree timed out; bolts: inputs failed unexecuted
  // after waiting in the queue longer than the message timeout.
  std::atomic<uint64_t> timed_out{0};
  std::atomic<uint64_t> replayed{0};  // emits of a message id that had failed before
  std::atomic<uint64_t> pending{0};   // tracked tuples whose tree is not decided yet (a gauge)
  LatencyHistogram complete_latency;  // emit -> tree completed, per acked message id
  // Bolts: Execute's time per tuple in nanoseconds, one tuple in kExecuteSampleEvery (as Storm
  // samples its stats); a batch bolt's ExecuteBatch time per row, every batch.
  LatencyHistogram execute_latency;
  static constexpr uint32_t kExecuteSampleEvery = 32;
  // The task's own metrics (TopologyContext::RegisterCounter and the like).
  std::shared_ptr<topology::MetricRegistry> user = std::make_shared<topology::MetricRegistry>();
  std::atomic<bool> finished{false};  // the task's thread is done (set before TaskFinished)

  // Named gauges a bolt reports (ReportGauge), in first-reported order. Set rarely (ticks, end
  // of stream), so a lock is cheaper to reason about than anything lock-free.
  void SetGauge(std::string_view name, uint64_t value) {
    std::lock_guard lock(gauges_mu_);
    topology::NamedValue(gauges_, name) = value;
  }
  topology::NamedCounts Gauges() const {
    std::lock_guard lock(gauges_mu_);
    return gauges_;
  }

  // Counts drops in `dropped` and under their cause. Per tuple at times (a flood of late
  // tuples), so no lock: a fixed table of causes, each named once before it is published.
  // Past kMaxDropCauses - 1 distinct causes, new ones count as "other".
  static constexpr std::size_t kMaxDropCauses = 16;
  void AddDropped(std::string_view cause, uint64_t count) {
    Bump(dropped, count);
    Bump(DropCause(cause), count);
  }
  topology::NamedCounts DroppedByCause() const {
    topology::NamedCounts out;
    const std::size_t n = drop_causes_.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < n; ++i) {
      out.emplace_back(drop_cause_[i].name, drop_cause_[i].count.load(std::memory_order_relaxed));
    }
    return out;
  }

  // The counter of `cause`, added if new; the table's last slot is kept for "other".
  std::atomic<uint64_t>& DropCause(std::string_view cause) {
    const std::size_t n = drop_causes_.load(std::memory_order_relaxed);  // written here only
    for (std::size_t i = 0; i < n; ++i) {
      if (drop_cause_[i].name == cause) return drop_cause_[i].count;
    }
    if (n + 1 >= kMaxDropCauses && cause != kOtherCause) return DropCause(kOtherCause);
    drop_cause_[n].name = std::string(cause);
    drop_causes_.store(n + 1, std::memory_order_release);
    return drop_cause_[n].count;
  }
  static constexpr std::string_view kOtherCause = "other";

  // The latest error (rare: under the same lock) and when, in ms since the epoch.
  struct LastError {
    std::string text;
    int64_t unix_ms = 0;
  };
  void SetLastError(std::string text, int64_t unix_ms) {
    std::lock_guard lock(gauges_mu_);
    last_error_ = {std::move(text), unix_ms};
  }
  LastError GetLastError() const {
    std::lock_guard lock(gauges_mu_);
    return last_error_;
  }

  static void Bump(std::atomic<uint64_t>& counter, uint64_t by = 1) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  }
  static void Store(std::atomic<uint64_t>& gauge, uint64_t value) noexcept {
    gauge.store(value, std::memory_order_relaxed);
  }

 private:
  mutable std::mutex gauges_mu_;
  topology::NamedCounts gauges_;
  struct DropCauseCount {
    std::string name;  // set before the slot is published, then never changed
    std::atomic<uint64_t> count{0};
  };
  std::array<DropCauseCount, kMaxDropCauses> drop_cause_;
  std::atomic<std::size_t> drop_causes_{0};  // slots published
  LastError last_error_;
};

}  // namespace tempest::runtime

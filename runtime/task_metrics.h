#pragma once

#include <atomic>
#include <cstdint>

namespace tempest::runtime {

// Live counters of one task. Written only by the task's own thread (plain relaxed load+store,
// no locked instructions on the hot path); read by anyone at any time.
struct TaskMetrics {
  std::atomic<uint64_t> emitted{0};   // emit calls
  std::atomic<uint64_t> executed{0};  // input tuples executed (bolts)
  std::atomic<uint64_t> acked{0};     // spouts: message ids acked; bolts: inputs acked
  std::atomic<uint64_t> failed{0};    // spouts: message ids failed; bolts: inputs failed
  std::atomic<uint64_t> errors{0};    // exceptions thrown by user code, ReportError calls
  std::atomic<bool> finished{false};  // the task's thread is done (set before TaskFinished)

  static void Bump(std::atomic<uint64_t>& counter, uint64_t by = 1) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  }
};

}  // namespace tempest::runtime

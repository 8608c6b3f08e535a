#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tempest::runtime {

// Log-linear buckets of microsecond latencies: exact below 16 µs, then 8 buckets per power of
// two (at most 12.5% wide), up to 2^34 µs (~4.8 hours; longer ones land in the last bucket).
struct LatencyBuckets {
  static constexpr int kCount = 256;

  static int Of(uint64_t micros) noexcept {
    if (micros < 16) return static_cast<int>(micros);
    const int e = 63 - std::countl_zero(micros);  // >= 4
    const int b = 16 + (e - 4) * 8 + static_cast<int>((micros >> (e - 3)) & 7);
    return b < kCount ? b : kCount - 1;
  }
  // The smallest latency of bucket b.
  static uint64_t Lower(int b) noexcept {
    if (b < 16) return static_cast<uint64_t>(b);
    const int e = 4 + (b - 16) / 8;
    return (uint64_t{8} + static_cast<uint64_t>((b - 16) % 8)) << (e - 3);
  }
};

// Counts per bucket, mergeable across tasks and processes; a value type.
struct LatencyCounts {
  std::vector<uint64_t> counts = std::vector<uint64_t>(LatencyBuckets::kCount, 0);

  uint64_t Total() const noexcept {
    uint64_t n = 0;
    for (uint64_t c : counts) n += c;
    return n;
  }
  void Merge(const LatencyCounts& other) noexcept {
    for (std::size_t i = 0; i < counts.size() && i < other.counts.size(); ++i) {
      counts[i] += other.counts[i];
    }
  }
  // The q-quantile (q in [0, 1]) in microseconds, as its bucket's lower bound; 0 when empty.
  uint64_t Quantile(double q) const noexcept {
    const uint64_t total = Total();
    if (total == 0) return 0;
    uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(total - 1)) + 1;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] >= rank) return LatencyBuckets::Lower(static_cast<int>(i));
      rank -= counts[i];
    }
    return LatencyBuckets::Lower(LatencyBuckets::kCount - 1);
  }
};

// The live histogram of one task: written by its thread only, read by anyone (relaxed).
class LatencyHistogram {
 public:
  void Record(uint64_t micros) noexcept {
    std::atomic<uint64_t>& c = counts_[LatencyBuckets::Of(micros)];
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  LatencyCounts Read() const {
    LatencyCounts out;
    for (int i = 0; i < LatencyBuckets::kCount; ++i) {
      out.counts[i] = counts_[i].load(std::memory_order_relaxed);
    }
    return out;
  }

 private:
  std::array<std::atomic<uint64_t>, LatencyBuckets::kCount> counts_{};
};

}  // namespace tempest::runtime

#pragma once

// A component's own metrics (part of Tempest's public API, tempest/tempest.h): counters, meters,
// gauges and histograms registered through the TopologyContext in Prepare or Open, as Storm's
// metrics v2 registers them (registerCounter, registerMeter, registerGauge, registerHistogram),
// and exported with the built-in ones: /metrics, the REST API, the web UI (docs/metrics.md).

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tempest::topology {

// Each metric is updated by its task's thread only (plain relaxed load and store: no locked
// instruction on the hot path) and read by the reporters from any thread.

// A count that goes up and down (Storm's Counter).
class Counter {
 public:
  void Inc(int64_t n = 1) noexcept {
    count_.store(count_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void Dec(int64_t n = 1) noexcept { Inc(-n); }
  int64_t GetCount() const noexcept { return count_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> count_{0};
};

// Events that only add up, for their rate (Storm's Meter): exported as a Prometheus counter.
class Meter {
 public:
  void Mark(uint64_t n = 1) noexcept {
    count_.store(count_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  uint64_t GetCount() const noexcept { return count_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> count_{0};
};

// A level the task sets (Storm's Gauge, which Storm reads by calling it; here the task sets the
// value, so no user code is ever called from a reporter's thread).
class Gauge {
 public:
  void Set(int64_t value) noexcept { value_.store(value, std::memory_order_relaxed); }
  int64_t GetValue() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

// A distribution of non-negative values (Storm's Histogram), in buckets at powers of two:
// bucket 0 holds 0, bucket b holds [2^(b-1), 2^b - 1]. Negative values count as 0.
class Histogram {
 public:
  static constexpr int kBuckets = 65;
  void Update(int64_t value) noexcept {
    const uint64_t v = value < 0 ? 0 : static_cast<uint64_t>(value);
    Bump(buckets_[std::bit_width(v)], 1);
    Bump(sum_, v);
  }
  // The smallest and largest value of bucket b.
  static uint64_t Lower(int b) noexcept { return b == 0 ? 0 : uint64_t{1} << (b - 1); }
  static uint64_t Upper(int b) noexcept {
    return b == 0 ? 0 : b == 64 ? UINT64_MAX : (uint64_t{1} << b) - 1;
  }
  uint64_t GetCount(int bucket) const noexcept {
    return buckets_[bucket].load(std::memory_order_relaxed);
  }
  uint64_t GetSum() const noexcept { return sum_.load(std::memory_order_relaxed); }

 private:
  static void Bump(std::atomic<uint64_t>& a, uint64_t by) noexcept {
    a.store(a.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  }
  std::array<std::atomic<uint64_t>, kBuckets> buckets_{};
  std::atomic<uint64_t> sum_{0};
};

// What one metric reads at a moment, for the reporters.
struct MetricReading {
  enum class Kind : uint8_t { kCounter, kMeter, kGauge, kHistogram };
  std::string name;
  Kind kind = Kind::kCounter;
  int64_t value = 0;              // counter, meter, gauge; a histogram's sum
  std::vector<uint64_t> buckets;  // histogram: (bucket, count) pairs of its non-empty buckets
  static const char* KindName(Kind kind) noexcept;  // "counter", "meter", "gauge", "histogram"
  friend bool operator==(const MetricReading&, const MetricReading&) = default;
};

// The metrics one task registered. Registering a name again returns the same metric; the same
// name as another kind throws std::invalid_argument naming it. Thread-safe.
class MetricRegistry {
 public:
  MetricRegistry();
  ~MetricRegistry();
  MetricRegistry(const MetricRegistry&) = delete;
  MetricRegistry& operator=(const MetricRegistry&) = delete;

  Counter& RegisterCounter(std::string_view name);
  Meter& RegisterMeter(std::string_view name);
  Gauge& RegisterGauge(std::string_view name);
  Histogram& RegisterHistogram(std::string_view name);
  // Every metric's reading, in registration order.
  std::vector<MetricReading> Read() const;

 private:
  struct Entry;
  Entry& Find(std::string_view name, MetricReading::Kind kind);

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Entry>> entries_;  // stable addresses: handed out as references
};

}  // namespace tempest::topology

namespace tempest {
using topology::Counter;
using topology::Gauge;
using topology::Histogram;
using topology::Meter;
using topology::MetricReading;
}  // namespace tempest

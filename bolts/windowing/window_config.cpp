#include "bolts/windowing/window_config.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

#include "topology/saturating.h"

namespace tempest::bolts {

void ValidateWatermarkSettings(int64_t lag_ms, int64_t watermark_interval_ms,
                               int64_t idle_timeout_ms) {
  if (lag_ms < 0) throw std::invalid_argument(fmt::format("lag_ms must be >= 0, found {}", lag_ms));
  if (watermark_interval_ms < 0) {
    throw std::invalid_argument(
        fmt::format("watermark_interval_ms must be >= 0, found {}", watermark_interval_ms));
  }
  if (idle_timeout_ms < 0) {
    throw std::invalid_argument(
        fmt::format("idle_timeout_ms must be >= 0, found {}", idle_timeout_ms));
  }
}

void ValidateWindowConfig(const WindowConfig& c) {
  if (c.length.value <= 0) {
    throw std::invalid_argument(
        fmt::format("window.length must be positive, found {}", c.length.value));
  }
  if (c.type == WindowConfig::Type::kSliding && c.slide.value <= 0) {
    throw std::invalid_argument(
        fmt::format("window.slide must be positive, found {}", c.slide.value));
  }
  ValidateWatermarkSettings(c.lag_ms, c.watermark_interval_ms, c.idle_timeout_ms);
  if (!c.event_time() && !c.late_stream.empty()) {
    throw std::invalid_argument(
        "late_stream needs timestamp_field: only event time has late tuples");
  }
}

int64_t CountWindowBytes(const WindowConfig& c) {
  if (!c.length.is_count()) return 0;
  return topology::SaturatingMul(c.length.value, kMinHeldRowBytes);
}

namespace {
constexpr int64_t kMiB = int64_t{1} << 20;
}  // namespace

std::string WindowMemoryWarning(const WindowConfig& c, const topology::TopologyConfig& topo) {
  const int64_t bytes = CountWindowBytes(c);
  const int64_t budget = int64_t{topo.window_memory_budget_mb} * kMiB;
  if (budget == 0 || bytes <= budget) return "";
  return fmt::format(
      "a count window of {} tuples holds at least {} MiB ({} bytes a tuple), more than "
      "topology.window.memory.budget.mb {}",
      c.length.value, bytes / kMiB, kMinHeldRowBytes, topo.window_memory_budget_mb);
}

void ValidateWindowFitsTopology(const WindowConfig& c, const topology::TopologyConfig& topo) {
  const int64_t limit = int64_t{topo.window_memory_limit_mb} * kMiB;
  if (const int64_t bytes = CountWindowBytes(c); limit > 0 && bytes > limit) {
    throw std::invalid_argument(
        fmt::format("a count window of {} tuples holds at least {} MiB ({} bytes a tuple), more "
                    "than topology.window.memory.limit.mb {}",
                    c.length.value, bytes / kMiB, kMinHeldRowBytes, topo.window_memory_limit_mb));
  }
  if (topo.acker_executors == 0) return;  // nothing is tracked, so nothing can time out
  const WindowSpan& slide = c.effective_slide();
  int64_t duration = 0;
  int64_t count = 0;
  for (const WindowSpan* s : {&c.length, &slide}) {
    int64_t& sum = s->is_count() ? count : duration;
    sum = topology::SaturatingAdd(sum, s->value);
  }
  const int64_t timeout_ms = static_cast<int64_t>(topo.message_timeout_secs) * 1000;
  if (duration > timeout_ms) {
    throw std::invalid_argument(
        fmt::format("Window duration (length + sliding interval) value {} is more than "
                    "topology.message.timeout.secs value {}",
                    duration, timeout_ms));
  }
  if (topo.max_spout_pending > 0 && count > topo.max_spout_pending) {
    throw std::invalid_argument(
        fmt::format("Window count (length + sliding interval) value {} is more than "
                    "topology.max.spout.pending value {}",
                    count, topo.max_spout_pending));
  }
}

}  // namespace tempest::bolts

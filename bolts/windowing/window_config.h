#pragma once

#include <cstdint>
#include <string>

#include "topology/topology_spec.h"

namespace tempest::bolts {

// A window length or slide: a number of tuples, or a duration in milliseconds.
struct WindowSpan {
  enum class Unit { kCount, kDuration };
  Unit unit = Unit::kCount;
  int64_t value = 1;  // tuples (kCount) or milliseconds (kDuration); > 0

  static WindowSpan Count(int64_t n) { return {Unit::kCount, n}; }
  static WindowSpan DurationMs(int64_t ms) { return {Unit::kDuration, ms}; }
  bool is_count() const noexcept { return unit == Unit::kCount; }
  friend bool operator==(const WindowSpan&, const WindowSpan&) = default;
};

// How a windowed bolt groups its input (Storm's BaseWindowedBolt settings); the names mirror the
// YAML keys of docs/contracts.md, "Values and files" and "Join and window bolts": `window: {type,
// length, slide}`, `timestamp_field`, `lag_ms`, `watermark_interval_ms`, `idle_timeout_ms`,
// `late_stream`.
struct WindowConfig {
  enum class Type { kTumbling, kSliding };
  Type type = Type::kTumbling;               // window.type
  WindowSpan length = WindowSpan::Count(1);  // window.length: {count: N} or {duration_ms: N}
  WindowSpan slide = WindowSpan::Count(1);   // window.slide (sliding only; tumbling: = length)
  std::string timestamp_field;               // event time from this int64 field; empty: none
  int64_t lag_ms = 0;                        // watermark = min of largest timestamps - lag
  int64_t watermark_interval_ms = 1000;      // watermark recomputed this often; 0: per tuple
  int64_t idle_timeout_ms = 0;               // an input silent this long stops holding back
                                             // the watermark; 0: never
  std::string late_stream;                   // late tuples go here; empty: dropped, counted

  static WindowConfig Tumbling(WindowSpan length) {
    WindowConfig c;
    c.type = Type::kTumbling;
    c.length = length;
    c.slide = length;
    return c;
  }
  static WindowConfig Sliding(WindowSpan length, WindowSpan slide) {
    WindowConfig c;
    c.type = Type::kSliding;
    c.length = length;
    c.slide = slide;
    return c;
  }
  bool event_time() const noexcept { return !timestamp_field.empty(); }
  // The slide actually used: a tumbling window slides by its length.
  const WindowSpan& effective_slide() const noexcept {
    return type == Type::kTumbling ? length : slide;
  }
};

// The event-time keys every watermark user shares: lag_ms, watermark_interval_ms and
// idle_timeout_ms must be >= 0. Throws std::invalid_argument naming the key.
void ValidateWatermarkSettings(int64_t lag_ms, int64_t watermark_interval_ms,
                               int64_t idle_timeout_ms);

// Checks the values (positive length and slide, non-negative lag, interval and idle timeout).
// Throws std::invalid_argument naming the key.
void ValidateWindowConfig(const WindowConfig& config);

// Storm's check that a window can complete before its tuples time out: length + slide (of the
// duration parts) must not exceed topology.message.timeout.secs, and (of the count parts)
// topology.max.spout.pending when it is set. Skipped when acking is off (acker executors 0). Throws
// std::invalid_argument with Storm's message, e.g. "Window duration (length + sliding interval)
// value 40000 is more than topology.message.timeout.secs value 30000".
void ValidateWindowFitsTopology(const WindowConfig& config, const topology::TopologyConfig& topo);

}  // namespace tempest::bolts

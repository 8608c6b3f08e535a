#pragma once

// Windowed bolts (part of Tempest's public API, tempest/tempest.h).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tempest/bolt.h"
#include "tempest/clock.h"
#include "tempest/fields.h"

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

// One activation of a window (Storm's TupleWindow). The views are valid only during
// WindowedBolt::Execute; copy a tuple to keep it.
class TupleWindow {
 public:
  using Tuples = std::span<const topology::Tuple* const>;
  TupleWindow(Tuples events, Tuples new_events, Tuples expired, std::optional<int64_t> start,
              int64_t end) noexcept
      : events_(events), new_(new_events), expired_(expired), start_(start), end_(end) {}

  // Every tuple in the window, in arrival order.
  Tuples Get() const noexcept { return events_; }
  // Those not in the previous activation.
  Tuples GetNew() const noexcept { return new_; }
  // Those that left the window since the previous activation (already acked); empty when the
  // bolt's ReadsExpired() is false.
  Tuples GetExpired() const noexcept { return expired_; }
  // Window start in milliseconds (end - length) for duration windows; none for count windows.
  std::optional<int64_t> StartTimestamp() const noexcept { return start_; }
  // Window end in milliseconds: the window's end timestamp (event time) or the trigger's
  // instant (processing time, milliseconds since the epoch).
  int64_t EndTimestamp() const noexcept { return end_; }

 private:
  Tuples events_, new_, expired_;
  std::optional<int64_t> start_;
  int64_t end_;
};

// A bolt that processes windows of tuples instead of single tuples (Storm's BaseWindowedBolt).
// Run it with AdaptWindowedBolt. Acking is the window's: every input is acked when it leaves
// the window (or at the end of the input), so Ack on the collector is ignored; Fail marks an
// input to be failed instead when it leaves. An emit without anchors is anchored to every tuple
// of the current window. Every method is called on the task's thread.
class WindowedBolt {
 public:
  virtual ~WindowedBolt() = default;

  virtual void Prepare(const topology::TopologyContext& context,
                       topology::OutputCollector& collector) {
    (void)context;
    (void)collector;
  }
  virtual void Execute(const TupleWindow& window) = 0;
  // Whether Execute reads window.GetExpired(). If not, a tuple is released (acked) and freed as
  // it leaves the window instead of being held until the next activation lists it: the window
  // then holds one window of tuples instead of up to two.
  virtual bool ReadsExpired() const { return true; }
  // After the last windows fired at the end of the input (emits here are unanchored).
  virtual void OnEndOfStream() {}
  virtual void Cleanup() {}
  virtual void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const = 0;
};

// Processing-time windows stamp arrivals and fire with it, and idle inputs are judged by it.
using WindowClock = topology::Clock;
using topology::SystemMillis;

// Runs a WindowedBolt as a Bolt (Storm's WindowedBoltExecutor). Checks the config
// (ValidateWindowConfig, throws std::invalid_argument) at once, and in Prepare that the window
// fits the message timeout and max spout pending (ValidateWindowFitsTopology). With a late
// stream configured, `late_fields` are the fields it is declared with: the input's, since late
// tuples are forwarded unchanged.
std::unique_ptr<topology::Bolt> AdaptWindowedBolt(std::unique_ptr<WindowedBolt> bolt,
                                                  WindowConfig config,
                                                  topology::Fields late_fields = {},
                                                  WindowClock clock = SystemMillis);

// A late stream of its own for some inputs (a join's per-input `late_stream`): late tuples of
// the inputs whose source component (or, with by_stream, stream id) is `input` go to `stream`,
// declared with `fields` (that input's). Inputs without a route use the config's late_stream.
struct LateRoute {
  std::string input;
  bool by_stream = false;
  std::string stream;
  topology::Fields fields;
};
// As above, with per-input late streams. Two routes may share a stream only with equal fields.
std::unique_ptr<topology::Bolt> AdaptWindowedBolt(std::unique_ptr<WindowedBolt> bolt,
                                                  WindowConfig config, topology::Fields late_fields,
                                                  std::vector<LateRoute> routes,
                                                  WindowClock clock = SystemMillis);

}  // namespace tempest::bolts

namespace tempest {
using bolts::AdaptWindowedBolt;
using bolts::LateRoute;
using bolts::TupleWindow;
using bolts::WindowClock;
using bolts::WindowConfig;
using bolts::WindowedBolt;
using bolts::WindowSpan;
}  // namespace tempest

#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bolts/windowing/batch_input.h"
#include "bolts/windowing/schema_cache.h"
#include "bolts/windowing/watermark_tracker.h"
#include "tempest/windowed_bolt.h"
#include "topology/output_collector.h"
#include "topology/topology_context.h"
#include "topology/tuple.h"

namespace tempest::bolts {

// The watermark keys a bolt with event time has (docs/contracts.md, "Event time").
struct WatermarkSettings {
  int64_t lag_ms = 0;
  int64_t watermark_interval_ms = 0;  // 0: the watermark moves after every tuple
  int64_t idle_timeout_ms = 0;        // 0: an input is never idle
};

// What a bolt says of one input stream: the field that holds its event time, and where its late
// tuples go ("": dropped and counted).
struct EventTimeRoute {
  std::string timestamp_field;
  std::string late_stream;
};

// The event-time side of a bolt's input, the same for windowed bolts and the interval and
// symmetric joins: per input schema its stream and timestamp field; the watermark over the
// bolt's input streams (WatermarkTracker: idle and ended inputs); late tuples routed or dropped
// and counted; tuples without a timestamp reported, acked and dropped. Each watermark rise is
// handed to the bolt. Single-threaded; the bolt passes its own clock readings in.
class EventTimeInput {
 public:
  using RouteOf = std::function<EventTimeRoute(const topology::GlobalStreamId& stream)>;
  using OnWatermark = std::function<void(int64_t watermark)>;

  // `now`: the clock at the start, when every input's idle time starts. `route_of` is asked once
  // per input stream; `clock` is read when an input may have gone idle.
  EventTimeInput(const topology::TopologyContext& context, topology::OutputCollector& out,
                 const WindowClock& clock, int64_t now, WatermarkSettings settings,
                 RouteOf route_of, OnWatermark on_watermark);

  // The tuple's event time into `ts`; false when it has no integer one (then it is reported, the
  // first ten times, acked and counted dropped). Per tuple, so no std::optional is returned (GCC
  // builds one in memory and reloads it whole, which waits for the store just made).
  bool Timestamp(const topology::Tuple& t, int64_t& ts);
  // The same for a batch row (acked and dropped through its batch's collector). Inline, as
  // StreamOf and Track: per row.
  bool Timestamp(const BatchInput& in, int64_t& ts) {
    const Stream& s = StreamOf(in.schema());
    if (s.ts_index >= 0 && static_cast<std::size_t>(s.ts_index) < in.row.size()) {
      const topology::Cell& c = in.row.cell(static_cast<std::size_t>(s.ts_index));
      if (c.tag == topology::CellTag::kInt) [[likely]] {
        ts = c.Int();
        return true;
      }
    }
    return NoTimestamp(in, s);
  }

  // A tuple or batch row at `ts` (its Timestamp): `keep()` stores it unless it is late, strictly
  // below the watermark; a late one goes unchanged to its late stream or is counted dropped,
  // acked either way. With watermark_interval_ms 0 the watermark then moves at once, after the
  // tuple is kept.
  template <class Input, class Keep>
  void Admit(const Input& in, int64_t ts, Keep&& keep) {
    const Tracked tracked = Track(in.schema(), ts);
    if (tracked.late) {
      Late(in);
    } else {
      keep();
    }
    if (settings_.watermark_interval_ms == 0 && (tracked.raised || settings_.idle_timeout_ms > 0)) {
      Advance(settings_.idle_timeout_ms > 0 ? clock_() : now_);
    }
  }

  // Timestamp, then Admit: keep(ts) stores the input unless it has no timestamp or is late.
  template <class Input, class Keep>
  void Take(const Input& in, Keep keep) {
    int64_t ts = 0;
    if (!Timestamp(in, ts)) return;
    Admit(in, ts, [&] { keep(ts); });
  }

  // Windows ending at or before `end` have fired: a tuple at or below it is late too (it could
  // only have been in them), even at the watermark itself.
  void CloseThrough(int64_t end) {
    closed_through_ = closed_through_ ? std::max(*closed_through_, end) : end;
  }

  // A timer tick at `now`: the watermark moves when its interval is due.
  void OnTick(int64_t now);
  // Every stream of `component` has ended: it no longer holds the watermark back.
  void OnSourceEnded(const std::string& component);
  // The end of the input: reports how many late tuples were dropped.
  void OnEndOfStream() const;
  // The gauges "watermark ms" (0 while below 0) and "watermark lag ms" (`now`, the wall clock,
  // minus the watermark; 0 when ahead), once there is a watermark. For the bolt's periodic
  // reports: ReportGauge takes a lock.
  void ReportWatermark(int64_t now) const;

 private:
  struct Stream {
    int index = 0;  // among the bolt's sources
    int ts_index = -1;
    EventTimeRoute route;
  };
  // The stream of a schema: the last one found again at once, inline (a tuple is looked up by
  // Timestamp, Track and Late in turn).
  const Stream& StreamOf(const topology::StreamSchema* schema) {
    if (schema == last_schema_) [[likely]]
      return *last_stream_;
    return FindStream(schema);
  }
  const Stream& FindStream(const topology::StreamSchema* schema);
  struct Tracked {
    bool late = false;    // below the watermark, or in windows that have all fired
    bool raised = false;  // it raised its stream's largest timestamp
  };
  // Records the timestamp.
  Tracked Track(const topology::StreamSchema* schema, int64_t ts) {
    const int stream = StreamOf(schema).index;
    const std::optional<int64_t> before = tracker_.max_ts(stream);
    tracker_.Touch(stream, now_);
    Tracked r;
    r.late = !tracker_.Track(stream, ts) || (closed_through_ && ts <= *closed_through_);
    r.raised = !before || ts > *before;
    return r;
  }
  // A batch row without an integer timestamp: reported, acked, counted; false.
  bool NoTimestamp(const BatchInput& in, const Stream& s);
  // Reports the first ten inputs without a timestamp (`describe()`: the input, for the message);
  // the caller acks it and counts it dropped.
  template <class Describe>
  void NoTimestamp(const Stream& s, Describe describe);
  void Late(const topology::Tuple& t);
  void Late(const BatchInput& in);
  // Counts a late input dropped (no late stream), logging the first.
  template <class Describe>
  void LateDropped(Describe describe);
  void Advance(int64_t now);

  topology::OutputCollector& out_;
  const WindowClock& clock_;
  WatermarkSettings settings_;
  RouteOf route_of_;
  OnWatermark on_watermark_;
  std::string component_;
  int task_ = 0;
  std::vector<topology::GlobalStreamId> sources_;
  int64_t now_ = 0;  // the clock at the last tick: idle inputs are judged at tick precision
  int64_t next_watermark_ = 0;
  WatermarkTracker tracker_;
  SchemaCache<Stream> streams_;
  const topology::StreamSchema* last_schema_ = nullptr;
  const Stream* last_stream_ = nullptr;
  std::optional<int64_t> closed_through_;  // CloseThrough's latest
  uint64_t late_dropped_ = 0;
  uint64_t bad_timestamps_ = 0;
};

}  // namespace tempest::bolts

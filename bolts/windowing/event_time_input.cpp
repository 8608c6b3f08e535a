#include "bolts/windowing/event_time_input.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "topology/saturating.h"

namespace tempest::bolts {

EventTimeInput::EventTimeInput(const topology::TopologyContext& context,
                               topology::OutputCollector& out, const WindowClock& clock,
                               int64_t now, WatermarkSettings settings, RouteOf route_of,
                               OnWatermark on_watermark)
    : out_(out),
      clock_(clock),
      settings_(settings),
      route_of_(std::move(route_of)),
      on_watermark_(std::move(on_watermark)),
      component_(context.GetThisComponentId()),
      task_(context.GetThisTaskId()),
      sources_(context.GetThisSources()),
      now_(now),
      next_watermark_(now_ + settings.watermark_interval_ms),
      tracker_(static_cast<int>(sources_.size()), settings.lag_ms, settings.idle_timeout_ms, now_) {
}

const EventTimeInput::Stream& EventTimeInput::FindStream(const topology::StreamSchema* schema) {
  last_schema_ = schema;
  last_stream_ = &streams_.Get(schema, [&] {
    const topology::Tuple u(schema, -1);  // the schema's names, null or not, as a tuple has them
    Stream s;
    const topology::GlobalStreamId id = u.GetSourceGlobalStreamId();
    for (std::size_t i = 0; i < sources_.size(); ++i) {
      if (sources_[i] == id) s.index = static_cast<int>(i);
    }
    s.route = route_of_(id);
    const auto& names = u.GetFields().names();
    const auto it = std::find(names.begin(), names.end(), s.route.timestamp_field);
    if (it != names.end()) s.ts_index = static_cast<int>(it - names.begin());
    return s;
  });
  return *last_stream_;
}

template <class Describe>
void EventTimeInput::NoTimestamp(const Stream& s, Describe describe) {
  if (++bad_timestamps_ <= 10) {
    out_.ReportError(
        fmt::format("tuple {} has no integer timestamp in field \"{}\"; acked and dropped",
                    describe(), s.route.timestamp_field));
  }
}

bool EventTimeInput::Timestamp(const topology::Tuple& t, int64_t& ts) {
  const Stream& s = StreamOf(t.schema());
  if (s.ts_index >= 0 && static_cast<std::size_t>(s.ts_index) < t.size()) {
    const topology::Value& v = t.GetValue(static_cast<std::size_t>(s.ts_index));
    if (const int64_t* i = v.IfInt()) {
      ts = *i;
      return true;
    }
  }
  NoTimestamp(s, [&] { return t.ToString(); });
  out_.Ack(t);
  out_.ReportDropped("no_timestamp");
  return false;
}

bool EventTimeInput::NoTimestamp(const BatchInput& in, const Stream& s) {
  NoTimestamp(s, [&] { return in.ToString(); });
  in.out.AckRow(in.row);
  out_.ReportDropped("no_timestamp");
  return false;
}

template <class Describe>
void EventTimeInput::LateDropped(Describe describe) {
  if (late_dropped_++ == 0) {
    spdlog::info("{} task {}: late tuple {} dropped (watermark {}); later ones are only counted",
                 component_, task_, describe(), *tracker_.watermark());
  }
  out_.ReportDropped("late");
}

void EventTimeInput::Late(const topology::Tuple& t) {
  const std::string& route = StreamOf(t.schema()).route.late_stream;
  if (!route.empty()) {
    out_.Emit(route, t, t.GetValues());
  } else {
    LateDropped([&] { return t.ToString(); });
  }
  out_.Ack(t);
}

void EventTimeInput::Late(const BatchInput& in) {
  const std::string& route = StreamOf(in.schema()).route.late_stream;
  uint64_t ack_val = 0;
  if (!route.empty()) {
    ack_val = in.out.ForwardRow(route, in.row);
  } else {
    LateDropped([&] { return in.ToString(); });
  }
  in.out.AckRow(in.row, ack_val);
}

void EventTimeInput::Advance(int64_t now) {
  if (tracker_.Advanced(now)) on_watermark_(tracker_.Current());
}

void EventTimeInput::OnTick(int64_t now) {
  now_ = now;
  if (settings_.watermark_interval_ms == 0 || now >= next_watermark_) {
    Advance(now);
    next_watermark_ = now + settings_.watermark_interval_ms;
  }
}

void EventTimeInput::OnSourceEnded(const std::string& component) {
  for (std::size_t i = 0; i < sources_.size(); ++i) {
    if (sources_[i].component == component) tracker_.End(static_cast<int>(i));
  }
  Advance(clock_());
}

void EventTimeInput::OnEndOfStream() const {
  if (late_dropped_ > 0) {
    spdlog::info("{} task {}: {} late tuples dropped (no late stream)", component_, task_,
                 late_dropped_);
  }
}

void EventTimeInput::ReportWatermark(int64_t now) const {
  const std::optional<int64_t> watermark = tracker_.watermark();
  if (!watermark) return;
  // Gauges are unsigned: an event time before 1970 shows as 0, a watermark ahead of the clock
  // as no lag.
  const int64_t lag = topology::SaturatingSub(now, *watermark);
  out_.ReportGauge("watermark ms", static_cast<uint64_t>(std::max<int64_t>(*watermark, 0)));
  out_.ReportGauge("watermark lag ms", static_cast<uint64_t>(std::max<int64_t>(lag, 0)));
}

}  // namespace tempest::bolts

#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "topology/saturating.h"

namespace tempest::bolts {

// Event-time watermark of a bolt with several input streams (docs/contracts.md, "Event time";
// Storm's WaterMarkEventGenerator plus idle and ended inputs). Per stream it keeps the largest
// timestamp seen. The watermark is undefined until every stream has delivered a tuple, is idle or
// has ended; then it is the minimum of the largest timestamps of the streams that still hold it
// back (neither idle nor ended) minus the lag — or, when none does, the largest timestamp of the
// ended streams minus the lag (all idle: it holds). It never goes back. A tuple is late when its
// timestamp is strictly below the watermark. Streams are numbered 0..n-1 by the caller; times are
// milliseconds. Single-threaded.
class WatermarkTracker {
 public:
  // idle_timeout_ms 0: a stream is never idle. `now` starts every stream's idle clock.
  WatermarkTracker(int streams, int64_t lag_ms, int64_t idle_timeout_ms, int64_t now);

  // Records a tuple's timestamp; false if it is late (it is still recorded, as Storm does).
  bool Track(int stream, int64_t ts) {
    Stream& s = streams_[stream];
    if (!s.max_ts || ts > *s.max_ts) s.max_ts = ts;
    return !watermark_ || ts >= *watermark_;
  }
  // The stream has delivered a tuple at `now` (it is not idle); Track does not read the clock.
  void Touch(int stream, int64_t now) { streams_[stream].last_active = now; }
  void End(int stream) {
    streams_[stream].ended = true;
    any_ended_ = true;
  }
  // The largest timestamp the stream has delivered (none yet: nullopt).
  std::optional<int64_t> max_ts(int stream) const noexcept { return streams_[stream].max_ts; }
  // Recomputes at `now` (idleness is judged then); true if the watermark advanced (Current then
  // gives it). Per tuple on the hot path, so it returns no std::optional: GCC builds a returned
  // one in memory with a byte store and reloads it whole, which waits for that store.
  bool Advanced(int64_t now) {
    if (idle_timeout_ms_ > 0 || any_ended_) return AdvancedSomeIdleOrEnded(now);
    // Every stream holds the watermark back: the least of their largest timestamps.
    int64_t least = std::numeric_limits<int64_t>::max();
    for (const Stream& s : streams_) {
      if (!s.max_ts) return false;  // a stream has not delivered yet
      least = std::min(least, *s.max_ts);
    }
    return Raise(topology::SaturatingSub(least, lag_ms_));
  }
  // The watermark; only once there is one.
  int64_t Current() const noexcept { return *watermark_; }
  // As Advanced, with the watermark it advanced to.
  std::optional<int64_t> Advance(int64_t now) { return Advanced(now) ? watermark_ : std::nullopt; }

  std::optional<int64_t> watermark() const noexcept { return watermark_; }
  bool IsIdle(int stream, int64_t now) const noexcept {
    return idle_timeout_ms_ > 0 && now - streams_[stream].last_active >= idle_timeout_ms_;
  }

 private:
  bool AdvancedSomeIdleOrEnded(int64_t now);
  bool Raise(int64_t candidate) {
    if (watermark_ && candidate <= *watermark_) return false;
    watermark_ = candidate;
    return true;
  }

  struct Stream {
    std::optional<int64_t> max_ts;
    int64_t last_active = 0;
    bool ended = false;
  };
  std::vector<Stream> streams_;
  int64_t lag_ms_;
  int64_t idle_timeout_ms_;
  std::optional<int64_t> watermark_;
  bool any_ended_ = false;  // Advanced's inline case needs none
};

}  // namespace tempest::bolts

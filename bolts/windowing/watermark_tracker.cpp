#include "bolts/windowing/watermark_tracker.h"

#include <algorithm>

#include "topology/saturating.h"

namespace tempest::bolts {

WatermarkTracker::WatermarkTracker(int streams, int64_t lag_ms, int64_t idle_timeout_ms,
                                   int64_t now)
    : streams_(static_cast<std::size_t>(streams)),
      lag_ms_(lag_ms),
      idle_timeout_ms_(idle_timeout_ms) {
  for (Stream& s : streams_) s.last_active = now;
}

bool WatermarkTracker::AdvancedSomeIdleOrEnded(int64_t now) {
  std::optional<int64_t> holding;  // min over streams that hold the watermark back
  std::optional<int64_t> ended;    // max over ended streams
  bool any_holding = false;
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    const Stream& s = streams_[i];
    if (s.ended) {
      if (s.max_ts) ended = ended ? std::max(*ended, *s.max_ts) : *s.max_ts;
      continue;
    }
    if (IsIdle(static_cast<int>(i), now)) continue;
    any_holding = true;
    if (!s.max_ts) return false;  // a live stream has not delivered yet
    holding = holding ? std::min(*holding, *s.max_ts) : *s.max_ts;
  }
  const std::optional<int64_t> base = any_holding ? holding : ended;
  if (!base) return false;
  return Raise(topology::SaturatingSub(*base, lag_ms_));
}

}  // namespace tempest::bolts

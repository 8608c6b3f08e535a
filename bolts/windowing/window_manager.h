#pragma once

#include <algorithm>
#include <boost/container/deque.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "bolts/windowing/window_config.h"
#include "topology/saturating.h"

namespace tempest::bolts {

// Storm's trigger and eviction policies (WindowedBoltExecutor picks them from the config): a
// count slide triggers by count, a duration slide by time; a count length evicts by count, a
// duration length by time; event time uses the watermark variants of each.
enum class TriggerKind { kCount, kTime, kWatermarkCount, kWatermarkTime };
enum class EvictionKind { kCount, kTime, kWatermarkCount, kWatermarkTime };

struct WindowPolicy {
  TriggerKind trigger = TriggerKind::kCount;
  int64_t slide = 1;  // tuples or milliseconds
  EvictionKind eviction = EvictionKind::kCount;
  int64_t length = 1;     // tuples or milliseconds
  bool tumbling = false;  // at Flush, the last window holds only tuples no window has held yet
  // Expired events are kept until the next activation lists them; false: each is released as it
  // leaves and never listed (a window's storage then holds one window, not two).
  bool keep_expired = true;
  // Activations list the events new since the previous one; false: GetNew() is empty (a packed
  // window's bolt sees each window whole, and saves the list's 8 bytes per event).
  bool list_new = true;
  // Activations list copies of the events (Activation::copies) instead of pointers to them, for
  // a small trivially copyable event (a packed window's 4-byte row handle: half a pointer).
  bool list_copies = false;

  static WindowPolicy From(const WindowConfig& config) {
    WindowPolicy p;
    const WindowSpan& slide = config.effective_slide();
    const bool event = config.event_time();
    p.trigger = slide.is_count() ? (event ? TriggerKind::kWatermarkCount : TriggerKind::kCount)
                                 : (event ? TriggerKind::kWatermarkTime : TriggerKind::kTime);
    p.slide = slide.value;
    p.eviction = config.length.is_count()
                     ? (event ? EvictionKind::kWatermarkCount : EvictionKind::kCount)
                     : (event ? EvictionKind::kWatermarkTime : EvictionKind::kTime);
    p.length = config.length.value;
    p.tumbling = config.type == WindowConfig::Type::kTumbling;
    return p;
  }
  bool event_time() const noexcept {
    return trigger == TriggerKind::kWatermarkCount || trigger == TriggerKind::kWatermarkTime;
  }
};

// Storm's WindowManager: holds the events of a window in arrival order, evicts and triggers by
// its policy, and reports each activation (the window's events, those new since the previous
// activation, those expired since then) and each expiry. Differences from Storm, on purpose:
// - no copies per activation: the views point into the manager's own storage (valid only during
//   the callback), and "new" is a per-event mark instead of a set of the previous window;
// - a time trigger evaluates the window at its scheduled instant (start + k * slide), not at the
//   moment the timer ran, so a late timer never lets a tuple slip between two tumbling windows;
// - the event-time scan never stops early (Storm's lag-based STOP can skip an in-window tuple
//   that arrived behind a newer one when several windows fire at one watermark);
// - timestamps at or below 0 are windowed like any other (Storm starts its search at 0);
// - Flush fires what is pending at the end of the input (docs/contracts.md, "Bounded runs").
// Single-threaded: call everything from one thread.
template <typename T>
class WindowManager {
 public:
  static constexpr int kExpireEventsThreshold = 100;  // Storm's: compact every 100 adds
  static constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();

  struct Activation {
    std::span<const T* const> events;      // in the window, arrival order (empty: list_copies)
    std::span<const T> copies;             // with list_copies: the window's events, copied
    std::span<const T* const> new_events;  // of those, not in the previous activation
    std::span<const T* const> expired;     // expired since the previous activation
    int64_t reference = 0;                 // the window's end: trigger time or window end ts
  };
  using ActivationHandler = std::function<void(const Activation&)>;
  // Once per event leaving the window, before the activation that lists it as expired.
  using ExpiryHandler = std::function<void(T&)>;

  WindowManager(WindowPolicy policy, ActivationHandler on_activation, ExpiryHandler on_expiry)
      : policy_(policy),
        on_activation_(std::move(on_activation)),
        on_expiry_(std::move(on_expiry)) {}

  // Adds an event with its timestamp (processing time: the arrival time). A count trigger may
  // fire inside.
  // `value` is moved or copied straight into the window's storage (a Tuple's inline values make
  // every extra move cost).
  template <typename U>
  void Add(U&& value, int64_t ts) {
    ts = std::max(ts, kNoTime + 1);  // kNoTime means "none": INT64_MIN is kept 1 ms later
    queue_.emplace_back(ts, Seen{0}, std::forward<U>(value));
    last_ts_ = ts;
    if (max_ts_ == kNoTime || ts > max_ts_) max_ts_ = ts;
    if (policy_.eviction == EvictionKind::kCount) ++count_;
    if (policy_.trigger == TriggerKind::kCount && ++trigger_count_ >= policy_.slide) {
      Trigger(ts);
    }
    if (++since_expiry_ >= kExpireEventsThreshold) Compact();
  }

  // Processing-time trigger: the first window is due at now + slide.
  void Start(int64_t now) { next_fire_ = now + policy_.slide; }
  // Fires every processing-time window whose instant has come, each at its own instant.
  void OnTime(int64_t now) {
    if (policy_.trigger != TriggerKind::kTime || next_fire_ == kNoTime) return;
    // After a long stall, skip the empty instants in one step rather than one by one.
    if (queue_.empty() && now >= next_fire_) {
      next_fire_ += ((now - next_fire_) / policy_.slide + 1) * policy_.slide;
      ++trigger_no_;
      expired_.clear();
      return;
    }
    while (next_fire_ <= now) {
      Trigger(next_fire_);
      next_fire_ += policy_.slide;
    }
  }

  // A new watermark: fires every event-time window that ends at or before it.
  void OnWatermark(int64_t watermark) {
    if (policy_.trigger == TriggerKind::kWatermarkTime) {
      WatermarkTimeWindows(watermark);
    } else if (policy_.trigger == TriggerKind::kWatermarkCount) {
      for (int64_t ts : SlidingCountTimestamps(last_processed_ts_, watermark, policy_.slide)) {
        SetContext(ts, std::nullopt);
        OnTrigger();
        last_processed_ts_ = ts;
      }
    }
  }

  // Evaluates the window at `reference` now, as a trigger does (Storm's setContext + onTrigger,
  // used by the processing-time triggers and by tests); true if it was activated.
  bool Trigger(int64_t reference) {
    SetContext(reference, std::nullopt);
    return OnTrigger();
  }

  // The input has ended (docs/contracts.md, "Bounded runs"): event time fires every pending window
  // as if the watermark were +infinity; a count or processing-time window fires once more if events
  // arrived since the last activation (tumbling: exactly those; sliding: what eviction keeps).
  void Flush(int64_t now) {
    switch (policy_.trigger) {
      case TriggerKind::kWatermarkTime:
        if (max_ts_ == kNoTime) return;
        // A count-length window never empties: stop at the first window holding the last event.
        OnWatermark(policy_.eviction == EvictionKind::kWatermarkTime
                        ? std::numeric_limits<int64_t>::max()
                        : AlignUp(max_ts_));
        return;
      case TriggerKind::kWatermarkCount:
        if (max_ts_ == kNoTime) return;
        OnWatermark(max_ts_);
        FireRemaining(max_ts_);
        return;
      case TriggerKind::kTime:
        OnTime(now);  // windows already due first: a late timer must not skip one
        FireRemaining(now);
        return;
      case TriggerKind::kCount:
        FireRemaining(now);
        return;
    }
  }

  // The timestamp a processing-time arrival at `now` gets: after the instant of the last window
  // evaluated, so that a tuple arriving in the very millisecond a window fired goes to the next
  // window instead of none.
  int64_t ArrivalTime(int64_t now) const noexcept {
    return policy_.trigger == TriggerKind::kTime && has_context_ && now <= reference_
               ? reference_ + 1
               : now;
  }

  // Expires every event still held (after Flush), without an activation.
  void ExpireAll() {
    for (Event& e : queue_) on_expiry_(e.value);
    queue_.clear();
    expired_.clear();
    count_ = 0;
  }

  std::size_t size() const noexcept { return queue_.size(); }

  // Storm's WindowManager queries, over the events held: the earliest timestamp in (start, end]
  // (kNoTime if none), and the count of timestamps <= reference.
  int64_t EarliestEventTs(int64_t start, int64_t end) const {
    int64_t min = kNoTime;
    for (const Event& e : queue_) {
      if (e.ts > start && e.ts <= end && (min == kNoTime || e.ts < min)) min = e.ts;
    }
    return min;
  }
  int64_t EventCount(int64_t reference) const {
    int64_t n = 0;
    for (const Event& e : queue_) n += e.ts <= reference ? 1 : 0;
    return n;
  }

 private:
  enum class Action { kExpire, kProcess, kKeep };
  // A small event (a packed window's 4-byte row handle) takes 16 bytes with a 32-bit mark:
  // marks then wrap, never to 0 (Mark), and an event held across 2^32 - 1 triggers could be
  // taken for one of the previous activation's (only GetNew() reads that).
  using Seen = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;
  struct Event {
    template <typename U>
    Event(int64_t t, Seen s, U&& v) : ts(t), seen(s), value(std::forward<U>(v)) {}
    int64_t ts;
    Seen seen;  // Mark of the last trigger whose window held it; 0: none yet
    T value;
  };
  static Seen Mark(uint64_t trigger) noexcept {
    if constexpr (sizeof(Seen) == sizeof(uint64_t)) {
      return trigger;
    } else {
      constexpr uint64_t kMax = std::numeric_limits<Seen>::max();
      return trigger == 0 ? 0 : static_cast<Seen>((trigger - 1) % kMax + 1);
    }
  }

  // Windows end at multiples of the slide (Storm's alignment); floor-safe for negative times.
  // The last window ends at INT64_MAX instead of past it.
  int64_t AlignUp(int64_t ts) const {
    const int64_t s = policy_.slide;
    int64_t r = ts % s;
    if (r < 0) r += s;
    return r == 0 ? ts : topology::SaturatingAdd(ts, s - r);
  }

  void WatermarkTimeWindows(int64_t watermark) {
    if (last_window_fired_) return;
    if (next_window_end_ == kNoTime) {
      const int64_t first = EarliestEventTs(kNoTime, watermark);
      if (first == kNoTime) return;
      next_window_end_ = AlignUp(first);
    }
    int64_t end = next_window_end_;
    while (end <= watermark) {
      SetContext(end, EventCount(end));
      if (OnTrigger()) {
        if (end == std::numeric_limits<int64_t>::max()) {
          last_window_fired_ = true;  // no window ends later
          break;
        }
        end = topology::SaturatingAdd(end, policy_.slide);
      } else {
        // Nothing in this window: jump to the window of the next event.
        const int64_t next = EarliestEventTs(end, watermark);
        if (next == kNoTime) break;
        end = AlignUp(next);
      }
    }
    next_window_end_ = end;
  }

  // Storm's getSlidingCountTimestamps: every slide-th event (arrival order) with a timestamp in
  // (start, end] gives the largest timestamp seen so far in that run.
  std::vector<int64_t> SlidingCountTimestamps(int64_t start, int64_t end, int64_t slide) const {
    std::vector<int64_t> out;
    if (end <= start) return out;
    int64_t count = 0;
    int64_t ts = kNoTime;
    for (const Event& e : queue_) {
      if (e.ts > start && e.ts <= end) {
        ts = std::max(ts, e.ts);
        if (++count % slide == 0) out.push_back(ts);
      }
    }
    return out;
  }

  void SetContext(int64_t reference, std::optional<int64_t> current_count) {
    has_context_ = true;
    reference_ = reference;
    if (policy_.eviction == EvictionKind::kWatermarkCount) {
      current_count_ = current_count ? *current_count : processed_ + policy_.slide;
      processed_ = 0;
    }
  }

  Action Evict(const Event& e) {
    if (flushing_tumbling_) return e.seen != 0 ? Action::kExpire : Action::kProcess;
    switch (policy_.eviction) {
      case EvictionKind::kCount:
        if (count_ > policy_.length) {
          --count_;
          return Action::kExpire;
        }
        return Action::kProcess;
      case EvictionKind::kTime: {
        // Before the first trigger, compaction judges by the latest arrival — but never past
        // the instant of a time trigger that is due and has not run yet: its window still
        // holds what arrived up to then.
        int64_t reference = reference_;
        if (!has_context_) {
          reference = policy_.trigger == TriggerKind::kTime && next_fire_ != kNoTime
                          ? std::min(last_ts_, next_fire_)
                          : last_ts_;
        }
        const int64_t diff = topology::SaturatingSub(reference, e.ts);
        if (diff >= policy_.length) return Action::kExpire;
        return diff < 0 ? Action::kKeep : Action::kProcess;
      }
      case EvictionKind::kWatermarkTime: {
        if (!has_context_) return Action::kKeep;  // nothing is evicted before a watermark
        const int64_t diff = topology::SaturatingSub(reference_, e.ts);
        if (diff < 0) return Action::kKeep;
        return diff >= policy_.length ? Action::kExpire : Action::kProcess;
      }
      case EvictionKind::kWatermarkCount:
        if (!has_context_ || e.ts > reference_ || processed_ >= current_count_) {
          return Action::kKeep;
        }
        if (current_count_ > policy_.length) {
          --current_count_;
          return Action::kExpire;
        }
        ++processed_;
        return Action::kProcess;
    }
    return Action::kKeep;
  }

  void Expire(Event& e) {
    if (!policy_.keep_expired) {
      on_expiry_(e.value);  // the caller drops the event from the queue
      return;
    }
    expired_.push_back(std::move(e.value));
    on_expiry_(expired_.back());
  }

  // Storm's partial scanEvents: expires from the head only, so the window stays bounded between
  // triggers (the full scan is ScanForWindow).
  void Compact() {
    since_expiry_ = 0;
    auto head = queue_.begin();
    while (head != queue_.end() && Evict(*head) == Action::kExpire) Expire(*head++);
    queue_.erase(queue_.begin(), head);
  }

  void Collect(Event& e) {
    if (policy_.list_copies) {
      copies_.push_back(e.value);
    } else {
      window_.push_back(&e.value);
    }
    if (policy_.list_new && (e.seen != Mark(trigger_no_ - 1) || e.seen == 0)) {
      new_.push_back(&e.value);
    }
    e.seen = Mark(trigger_no_);
  }

  bool OnTrigger() {
    ++trigger_no_;
    window_.clear();
    new_.clear();
    copies_.clear();
    // Exact, where doubling would leave up to half unused.
    if (policy_.list_copies) {
      copies_.reserve(queue_.size());
    } else {
      window_.reserve(queue_.size());
    }
    ScanForWindow();
    const bool activated = !window_.empty() || !copies_.empty();
    if (activated) {
      expired_ptrs_.clear();
      for (const T& t : expired_) expired_ptrs_.push_back(&t);
      on_activation_(Activation{window_, copies_, new_, expired_ptrs_, reference_});
    }
    expired_.clear();
    trigger_count_ = 0;
    return activated;
  }

  // Evaluates every event once (Evict has side effects), in order: expired ones move to expired_
  // until the next activation reports them, survivors keep their order, the window is collected.
  void ScanForWindow() {
    since_expiry_ = 0;
    // Iterators, not indices: a deque index is a division and a block lookup per access.
    const auto end = queue_.end();
    auto head = queue_.begin();
    Action a = Action::kKeep;
    while (head != end) {
      a = Evict(*head);
      if (a != Action::kExpire) break;
      Expire(*head++);
    }
    auto w = head;
    for (auto i = head; i != end; ++i) {
      if (i != head) a = Evict(*i);
      if (a == Action::kExpire) {
        Expire(*i);
        continue;
      }
      if (w != i) *w = std::move(*i);
      if (a == Action::kProcess) Collect(*w);
      ++w;
    }
    queue_.erase(w, end);
    queue_.erase(queue_.begin(), head);
  }

  // The last window of a count or processing-time trigger, at the end of the input.
  void FireRemaining(int64_t reference) {
    int64_t unseen = 0;
    for (const Event& e : queue_) unseen += e.seen == 0 ? 1 : 0;
    if (unseen == 0) return;
    SetContext(reference, std::nullopt);
    if (!policy_.tumbling) {
      // The window slides by the events that arrived since the last trigger.
      if (policy_.eviction == EvictionKind::kWatermarkCount) current_count_ = processed_ + unseen;
      OnTrigger();
      return;
    }
    // Tumbling: the window is exactly the events no window has held.
    flushing_tumbling_ = true;
    OnTrigger();
    flushing_tumbling_ = false;
    if (policy_.eviction == EvictionKind::kCount) count_ = static_cast<int64_t>(queue_.size());
  }

  const WindowPolicy policy_;
  ActivationHandler on_activation_;
  ExpiryHandler on_expiry_;

  // Arrival order. std::deque's 512-byte blocks hold a single Tuple event: one allocation per
  // event, scattered over the heap; blocks of many events keep a window contiguous.
  using Queue =
      boost::container::deque<Event, void,
                              boost::container::deque_options_t<boost::container::block_size<64>>>;
  Queue queue_;
  std::vector<T> expired_;                             // expired since the last trigger
  std::vector<const T*> window_, new_, expired_ptrs_;  // views of the current activation
  std::vector<T> copies_;                              // with list_copies
  uint64_t trigger_no_ = 0;
  int since_expiry_ = 0;
  int64_t last_ts_ = 0;
  int64_t max_ts_ = kNoTime;
  // Eviction context: the reference time of the last trigger.
  bool has_context_ = false;
  int64_t reference_ = 0;
  bool flushing_tumbling_ = false;  // FireRemaining: expire what a window held, keep the rest
  int64_t count_ = 0;               // kCount eviction: events held
  int64_t current_count_ = 0;       // kWatermarkCount eviction: Storm's currentCount
  int64_t processed_ = 0;           // kWatermarkCount eviction: events in the last window
  // Triggers.
  int64_t trigger_count_ = 0;            // kCount: events since the last trigger
  int64_t next_fire_ = kNoTime;          // kTime: the next scheduled instant
  int64_t next_window_end_ = kNoTime;    // kWatermarkTime
  bool last_window_fired_ = false;       // kWatermarkTime: the window ending at INT64_MAX
  int64_t last_processed_ts_ = kNoTime;  // kWatermarkCount
};

}  // namespace tempest::bolts

#include "bolts/join/interval_join_state.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "bolts/join/flat_key_table.h"
#include "bolts/join/timer_queue.h"

namespace tempest::bolts {

using topology::Tuple;

namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t SaturatingAdd(int64_t a, int64_t b) noexcept {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) return b > 0 ? kMax : kMin;
  return out;
}

// -x, with an unbounded end staying unbounded (-INT64_MIN does not exist).
int64_t Negate(int64_t x) noexcept { return x == kMin ? kMax : (x == kMax ? kMin : -x); }

// One buffered element: its tuple lives in the side's slab at `slot`.
struct Entry {
  int64_t ts = 0;
  uint64_t seq = 0;  // arrival order, over both sides
  uint32_t slot = 0;
  bool matched = false;
};

// One side of one key, ordered by (ts, seq): a vector whose consumed front is skipped by `head`
// and compacted now and then, so the in-order case is push_back and pop_front.
struct Buffer {
  std::vector<Entry> items;
  std::size_t head = 0;

  bool empty() const noexcept { return head == items.size(); }
  Entry* begin() noexcept { return items.data() + head; }
  Entry* end() noexcept { return items.data() + items.size(); }
  const Entry* begin() const noexcept { return items.data() + head; }
  const Entry* end() const noexcept { return items.data() + items.size(); }

  void Insert(const Entry& e) {
    if (empty() || items.back().ts <= e.ts) {
      items.push_back(e);
      return;
    }
    // Out of order: after every element with a timestamp <= e's (they all arrived earlier).
    Entry* at = std::upper_bound(begin(), end(), e.ts,
                                 [](int64_t ts, const Entry& x) { return ts < x.ts; });
    items.insert(items.begin() + (at - items.data()), e);
  }
  // Removes the element with `seq` (the front, unless timestamps saturated).
  Entry Remove(uint64_t seq) {
    Entry* it = begin();
    while (it->seq != seq) ++it;
    const Entry e = *it;
    if (it == begin()) {
      ++head;
    } else {
      items.erase(items.begin() + (it - items.data()));
    }
    if (head == items.size()) {
      items.clear();
      head = 0;
    } else if (head >= 16 && 2 * head >= items.size()) {
      items.erase(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(head));
      head = 0;
    }
    return e;
  }
};

// A key's buffers (its values live apart, in the FlatKeyTable).
struct KeyState {
  uint64_t hash = 0;
  Buffer sides[2];
  bool in_table = false;
  bool empty() const noexcept { return sides[0].empty() && sides[1].empty(); }
};

// When an element may leave: ordered by (cleanup, seq).
struct Timer {
  int64_t cleanup = 0;
  uint64_t seq = 0;
  uint32_t key = 0;
  bool operator<(const Timer& o) const noexcept {
    return cleanup != o.cleanup ? cleanup < o.cleanup : seq < o.seq;
  }
};

// A key's parts, copied.
struct ValuesCodec {
  using Stored = topology::Values;
  static bool Equals(const Stored& stored, const KeyRef& key) noexcept {
    if (stored.size() != key.size()) return false;
    for (std::size_t i = 0; i < key.size(); ++i) {
      if (!(stored[i] == *key[i])) return false;
    }
    return true;
  }
  static void Assign(Stored& stored, const KeyRef& key) {
    stored.clear();
    for (const topology::Value* v : key) stored.push_back(*v);
  }
  static void Release(Stored& stored) noexcept { stored.clear(); }
};

}  // namespace

struct IntervalJoinState::Impl {
  IntervalBounds bounds;
  int64_t stay[2];
  bool left_once;
  IntervalJoinSink& sink;
  int64_t watermark = kMin;
  uint64_t next_seq = 0;
  std::size_t held[2] = {0, 0};

  // Keys (FlatKeyTable): a key whose buffers empty is kept for a while, then swept.
  FlatKeyTable<KeyState, ValuesCodec> keys;

  // Per side: the tuples (slots recycled) and the timers.
  // Slots are constructed and destroyed in place (a move-assign of a Tuple copies its inline
  // values one by one, and resetting one is another assign).
  std::vector<std::optional<Tuple>> tuples[2];
  std::vector<uint32_t> free_slots[2];
  TimerQueue<Timer> timers[2];

  Impl(const IntervalJoinOptions& o, IntervalJoinSink& s)
      : bounds(o.bounds), stay{o.stay[0], o.stay[1]}, left_once(o.left_once), sink(s) {}

  int64_t Cleanup(int side, int64_t ts) const noexcept {
    if (stay[side] == IntervalJoinOptions::kNeverLeaves) return kMax;
    return SaturatingAdd(ts, stay[side]);
  }

  uint32_t Store(int side, Tuple&& t) {
    if (!free_slots[side].empty()) {
      const uint32_t slot = free_slots[side].back();
      free_slots[side].pop_back();
      tuples[side][slot].emplace(std::move(t));
      return slot;
    }
    tuples[side].emplace_back(std::move(t));
    return static_cast<uint32_t>(tuples[side].size() - 1);
  }

  void Add(int side, const KeyRef& key, uint64_t hash, int64_t ts, Tuple&& t) {
    const uint32_t k = keys.FindOrInsert(key, hash);
    Entry e;
    e.ts = ts;
    e.seq = next_seq++;
    e.slot = Store(side, std::move(t));
    const Tuple& ours = *tuples[side][e.slot];
    // The other side's timestamps that pair with ts.
    const int64_t lo =
        side == 0 ? SaturatingAdd(ts, bounds.lower) : SaturatingAdd(ts, Negate(bounds.upper));
    const int64_t hi =
        side == 0 ? SaturatingAdd(ts, bounds.upper) : SaturatingAdd(ts, Negate(bounds.lower));
    Buffer& other = keys[k].sides[1 - side];
    const std::vector<std::optional<Tuple>>& theirs = tuples[1 - side];
    Entry* it = other.begin();
    // In-order data probes near the back: search there first.
    if (!other.empty() && other.items.back().ts < lo) {
      it = other.end();
    } else if (!other.empty() && other.begin()->ts < lo) {
      it = std::lower_bound(other.begin(), other.end(), lo,
                            [](const Entry& x, int64_t v) { return x.ts < v; });
    }
    const bool once = left_once && side == 0;
    for (; it != other.end() && it->ts <= hi; ++it) {
      if (left_once && side == 1 && it->matched) continue;  // that left element is done
      const Tuple& mine = *theirs[it->slot];
      if (!(side == 0 ? sink.Pairs(ours, mine) : sink.Pairs(mine, ours))) continue;
      it->matched = true;
      e.matched = true;
      const int64_t pair_ts = std::max(ts, it->ts);
      if (side == 0) {
        sink.Joined(ours, mine, pair_ts);
      } else {
        sink.Joined(mine, ours, pair_ts);
      }
      if (once) break;
    }
    if (once && e.matched) {
      // Joined on arrival: nothing later can change its output, so it is not kept.
      std::optional<Tuple>& tuple = tuples[side][e.slot];
      sink.Left(JoinSide::kLeft, *tuple, ts, true);
      tuple.reset();
      free_slots[side].push_back(e.slot);
      if (keys[k].empty()) keys.Emptied();
      return;
    }
    keys[k].sides[side].Insert(e);
    ++held[side];
    timers[side].Push({Cleanup(side, ts), e.seq, k});
  }

  // Lets out, in (cleanup, seq) order, every element whose cleanup time is below `until`
  // (all of them with `all`).
  void Release(int64_t until, bool all) {
    for (;;) {
      const Timer* l = timers[0].Front();
      const Timer* r = timers[1].Front();
      int side;
      const Timer* t;
      if (l == nullptr && r == nullptr) return;
      if (r == nullptr || (l != nullptr && *l < *r)) {
        side = 0;
        t = l;
      } else {
        side = 1;
        t = r;
      }
      if (!all && t->cleanup >= until) return;
      const uint32_t k = t->key;
      const uint64_t seq = t->seq;
      timers[side].Pop(t);
      const Entry e = keys[k].sides[side].Remove(seq);
      --held[side];
      std::optional<Tuple>& tuple = tuples[side][e.slot];
      sink.Left(side == 0 ? JoinSide::kLeft : JoinSide::kRight, *tuple, e.ts, e.matched);
      tuple.reset();
      free_slots[side].push_back(e.slot);
      if (keys[k].empty()) keys.Emptied();
    }
  }
};

namespace {

// Flink's stays: an element waits for partners up to the bound on its far side, and never less
// than until the watermark passes its own time.
IntervalJoinOptions FlinkOptions(IntervalBounds b) noexcept {
  IntervalJoinOptions o;
  o.bounds = b;
  o.stay[0] = std::max<int64_t>(b.upper, 0);
  o.stay[1] = b.lower == kMin ? kMax : std::max<int64_t>(-b.lower, 0);
  return o;
}

}  // namespace

IntervalJoinState::IntervalJoinState(IntervalBounds bounds, IntervalJoinSink& sink)
    : impl_(std::make_unique<Impl>(FlinkOptions(bounds), sink)) {}

IntervalJoinState::IntervalJoinState(IntervalJoinSink& sink, const IntervalJoinOptions& options)
    : impl_(std::make_unique<Impl>(options, sink)) {}

IntervalJoinState::~IntervalJoinState() = default;

void IntervalJoinState::Add(JoinSide side, const KeyRef& key, uint64_t hash, int64_t ts,
                            Tuple&& tuple) {
  impl_->Add(static_cast<int>(side), key, hash, ts, std::move(tuple));
}

void IntervalJoinState::Advance(int64_t watermark) {
  if (watermark <= impl_->watermark) return;
  impl_->watermark = watermark;
  impl_->Release(watermark, false);
}

void IntervalJoinState::Drain() {
  impl_->Release(kMax, true);
  impl_->keys.Rebuild(16);  // nothing is held: forget every key
}

bool IntervalJoinState::IsLate(int64_t ts) const noexcept { return ts < impl_->watermark; }
int64_t IntervalJoinState::watermark() const noexcept { return impl_->watermark; }
int64_t IntervalJoinState::CleanupTime(JoinSide side, int64_t ts) const noexcept {
  return impl_->Cleanup(static_cast<int>(side), ts);
}
std::size_t IntervalJoinState::size(JoinSide side) const noexcept {
  return impl_->held[static_cast<int>(side)];
}
std::size_t IntervalJoinState::keys() const noexcept { return impl_->keys.live(); }

std::vector<int64_t> IntervalJoinState::Timestamps(JoinSide side) const {
  std::vector<int64_t> out;
  for (const KeyState& k : impl_->keys.slots()) {
    for (const Entry& e : k.sides[static_cast<int>(side)]) out.push_back(e.ts);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace tempest::bolts

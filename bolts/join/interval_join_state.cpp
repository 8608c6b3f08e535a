#include "bolts/join/interval_join_state.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <utility>

#include "bolts/join/flat_key_table.h"
#include "bolts/join/packed_key_codec.h"
#include "bolts/windowing/pack_into.h"
#include "bolts/windowing/packed_row.h"
#include "bolts/windowing/row_arena.h"

namespace tempest::bolts {

using topology::Tuple;

// ---- IntervalJoinSink: the rows as Tuples.

const Tuple& IntervalJoinSink::AsTuple(const IntervalJoinRow& row, int i) {
  if (row.added() != nullptr) return *row.added();
  row.Unpack(scratch_[i]);
  return scratch_[i];
}

void IntervalJoinSink::JoinedRows(const IntervalJoinRow& left, const IntervalJoinRow& right,
                                  int64_t ts) {
  const Tuple& l = AsTuple(left, 0);
  const Tuple& r = AsTuple(right, 1);
  Joined(l, r, ts);
  if (left.added() == nullptr) left.FoldAck(scratch_[0]);
  if (right.added() == nullptr) right.FoldAck(scratch_[1]);
}

void IntervalJoinSink::LeftRow(JoinSide side, const IntervalJoinRow& row, int64_t ts,
                               bool matched) {
  row.Unpack(scratch_[0]);  // a copy also of an added tuple: the receiver may move from it
  Left(side, scratch_[0], ts, matched);
}

bool IntervalJoinSink::PairsRows(const IntervalJoinRow& left, const IntervalJoinRow& right) {
  return Pairs(AsTuple(left, 0), AsTuple(right, 1));
}

namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
// A side's rows start in 1 KiB chunks, growing with what is held (see RowArena).
constexpr uint32_t kFirstChunkBytes = 1024;

int64_t SaturatingAdd(int64_t a, int64_t b) noexcept {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) return b > 0 ? kMax : kMin;
  return out;
}

// -x, with an unbounded end staying unbounded (-INT64_MIN does not exist).
int64_t Negate(int64_t x) noexcept { return x == kMin ? kMax : (x == kMax ? kMin : -x); }

// One held element: its timestamp, its row in the side's arena, its arrival number (over both
// sides) and whether it has paired.
struct Entry {
  int64_t ts = 0;
  HeldRow row;
  uint32_t order = 0;  // arrival number << 1 | matched

  uint32_t seq() const noexcept { return order >> 1; }
  bool matched() const noexcept { return (order & 1) != 0; }
  void Match() noexcept { order |= 1; }
};
static_assert(sizeof(Entry) == 16);

// A key's elements, per side ordered by (ts, arrival): the first inline, more in a ring of
// power-of-two capacity that the slot keeps (also once the key is forgotten: the next key in the
// slot reuses it). Trivially copyable, so the key table moves slots as bytes; the state frees the
// rings. Ordered inserts (the usual case) are a push at the back, leaving a pop at the front.
struct KeyState {
  static constexpr uint32_t kSpilled = uint32_t{1} << 31;  // in count[s]: the ring is in use

  struct Ring {
    Entry* data;
    uint32_t head;
    uint32_t mask;
  };
  union Store {
    Entry one;
    Ring ring;
  };

  uint32_t hash = 0;  // the low bits (FlatKeyTable)
  uint32_t count[2] = {0, 0};
  bool in_table = false;
  Store store[2] = {};

  uint32_t Size(int s) const noexcept { return count[s] & ~kSpilled; }
  bool Spilled(int s) const noexcept { return (count[s] & kSpilled) != 0; }
  bool empty() const noexcept { return Size(0) == 0 && Size(1) == 0; }

  Entry& At(int s, uint32_t i) noexcept {
    if (!Spilled(s)) return store[s].one;
    const Ring& r = store[s].ring;
    return r.data[(r.head + i) & r.mask];
  }
  const Entry& At(int s, uint32_t i) const noexcept {
    return const_cast<KeyState*>(this)->At(s, i);
  }

  // By value, as Insert: an entry passed by reference is built on the stack in narrow stores and
  // then copied whole, which waits for those stores (a failed store forward) on every insert.
  // Inline where it writes in place: the first element (short intervals hold one per key) or one
  // that fits the ring.
  [[gnu::always_inline]] void PushBack(int s, Entry e) {
    if (count[s] == 0) {  // not spilled, and empty
      store[s].one = e;
      count[s] = 1;
      return;
    }
    if (Spilled(s)) {
      Ring& r = store[s].ring;
      if (const uint32_t n = Size(s); n != r.mask + 1) {
        r.data[(r.head + n) & r.mask] = e;
        ++count[s];
        return;
      }
    }
    PushBackGrowing(s, e);
  }
  // Spills the inline element into a ring, or grows the ring, then pushes.
  [[gnu::noinline]] void PushBackGrowing(int s, Entry e) {
    const uint32_t n = Size(s);
    if (!Spilled(s)) {
      const Entry first = store[s].one;
      store[s].ring = Ring{Allocate(4), 0, 3};
      store[s].ring.data[0] = first;
      store[s].ring.data[1] = e;
      count[s] = 2 | kSpilled;
      return;
    }
    Ring& r = store[s].ring;
    if (n == r.mask + 1) Grow(r, n);
    r.data[(r.head + n) & r.mask] = e;
    ++count[s];
  }

  // After the elements at or below e's timestamp (they all arrived earlier). In order (the usual
  // case) it is a push at the back, inline; an out-of-order element takes the call.
  void Insert(int s, Entry e) {
    const uint32_t n = Size(s);
    if (n == 0 || At(s, n - 1).ts <= e.ts) [[likely]] {
      PushBack(s, e);
      return;
    }
    InsertBefore(s, e);
  }
  // Where e goes among elements some of which are later than it.
  [[gnu::noinline]] void InsertBefore(int s, Entry e) {
    uint32_t n = Size(s);
    uint32_t lo = 0, hi = n - 1;  // the first with ts > e.ts is in [lo, hi]
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (At(s, mid).ts <= e.ts) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    const Entry last = At(s, n - 1);  // PushBack may move the entries
    PushBack(s, last);
    for (; n - 1 > lo; --n) At(s, n - 1) = At(s, n - 2);
    At(s, lo) = e;
  }

  // The index of the first element with ts >= `ts` (Size if none).
  uint32_t LowerBound(int s, int64_t ts) const noexcept {
    uint32_t lo = 0, hi = Size(s);
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (At(s, mid).ts < ts) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  void PopFront(int s, uint32_t n = 1) noexcept {
    if (Spilled(s)) {
      Ring& r = store[s].ring;
      r.head = (r.head + n) & r.mask;
    }
    count[s] -= n;
  }
  void PopBack(int s, uint32_t n) noexcept { count[s] -= n; }

  void Free() noexcept {
    for (int s = 0; s < 2; ++s) {
      if (Spilled(s)) std::free(store[s].ring.data);
      count[s] = 0;
    }
  }

 private:
  static Entry* Allocate(std::size_t n) {
    void* p = std::malloc(n * sizeof(Entry));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<Entry*>(p);
  }
  static void Grow(Ring& r, uint32_t n) {
    if (n >= (uint32_t{1} << 30)) throw std::length_error("a join key holds 2^30 elements");
    Entry* data = Allocate(2 * std::size_t{n});
    for (uint32_t i = 0; i < n; ++i) data[i] = r.data[(r.head + i) & r.mask];
    std::free(r.data);
    r = Ring{data, 0, 2 * n - 1};
  }
};
static_assert(sizeof(KeyState) == 48);
static_assert(sizeof(KeyState) == 48);

// A side's elements whose cleanup time is neither end of int64, in (cleanup, arrival) order.
// Those arriving in order (at or after the last one queued, the usual case) go into a FIFO as
// their key alone: the FIFO's front element is its key's front element, whose buffer holds its
// time (see Impl::Front). The others go into a min-heap with their time. Each element has one
// entry, and popping one lets its key's front element go: the earliest element of a key is
// always the first of its buffer, and whichever queue holds the earliest element overall shows
// it at its front.
class CleanupQueue {
 public:
  struct Timer {
    int64_t cleanup = 0;
    uint32_t seq = 0;
    uint32_t key = 0;
  };

  static bool Before(int64_t c1, uint32_t s1, int64_t c2, uint32_t s2) noexcept {
    return c1 != c2 ? c1 < c2 : s1 < s2;
  }

  bool empty() const noexcept { return fifo_empty() && heap_.empty(); }
  bool fifo_empty() const noexcept { return fifo_size_ == 0; }
  uint32_t fifo_front() const noexcept { return fifo_[fifo_head_]; }
  const Timer* heap_front() const noexcept { return heap_.empty() ? nullptr : &heap_.front(); }

  // Returns whether it went into the heap (out of line: the few out-of-order elements).
  bool Push(int64_t cleanup, uint32_t seq, uint32_t key) {
    if (fifo_empty() || !Before(cleanup, seq, last_cleanup_, last_seq_)) [[likely]] {
      if (fifo_size_ == fifo_.size()) GrowFifo();
      fifo_[(fifo_head_ + fifo_size_) & (fifo_.size() - 1)] = key;
      ++fifo_size_;
      last_cleanup_ = cleanup;
      last_seq_ = seq;
      return false;
    }
    PushHeap(cleanup, seq, key);
    return true;
  }
  [[gnu::noinline]] void PushHeap(int64_t cleanup, uint32_t seq, uint32_t key) {
    heap_.push_back({cleanup, seq, key});
    std::push_heap(heap_.begin(), heap_.end(), Later);
  }
  void PopFifo() noexcept {
    fifo_head_ = (fifo_head_ + 1) & (fifo_.size() - 1);
    --fifo_size_;
  }
  void PopHeap() {
    std::pop_heap(heap_.begin(), heap_.end(), Later);
    heap_.pop_back();
  }

  // Arrival numbers mapped through `renumber` (monotonic; exact for held elements).
  template <typename F>
  void Renumber(F&& renumber) {
    for (Timer& t : heap_) t.seq = renumber(t.seq);
    last_seq_ = renumber(last_seq_);
  }

 private:
  static bool Later(const Timer& a, const Timer& b) noexcept {
    return Before(b.cleanup, b.seq, a.cleanup, a.seq);
  }
  void GrowFifo() {
    std::vector<uint32_t> bigger(std::max<std::size_t>(16, 2 * fifo_.size()));
    for (std::size_t i = 0; i < fifo_size_; ++i) {
      bigger[i] = fifo_[(fifo_head_ + i) & (fifo_.size() - 1)];
    }
    fifo_.swap(bigger);
    fifo_head_ = 0;
  }

  std::vector<uint32_t> fifo_;  // keys, a ring of power-of-two size
  std::size_t fifo_head_ = 0;
  std::size_t fifo_size_ = 0;
  std::vector<Timer> heap_;
  int64_t last_cleanup_ = kMin;  // the last FIFO push
  uint32_t last_seq_ = 0;
};

}  // namespace

struct IntervalJoinState::Impl {
  IntervalBounds bounds;
  int64_t stay[2];
  bool left_once;
  uint32_t renumber_at;
  IntervalJoinRowSink& sink;
  int64_t watermark = kMin;
  uint32_t next_seq = 0;
  std::size_t held[2] = {0, 0};
  // Elements whose cleanup time saturated (none of them is in the cleanup queues): at kMin they
  // leave at the next Advance, at kMax at Drain, in arrival order either way.
  std::size_t saturated_low = 0;
  std::size_t saturated_high = 0;

  // Keys (FlatKeyTable): a key whose buffers empty is forgotten at once. At a row or two per key
  // (short intervals, many keys) kept empty keys would be a fifth of the state; the copy and rehash
  // of a key that comes back do not show beside the rest of a row's way through the bolt.
  FlatKeyTable<KeyState, PackedKeyCodec> keys;

  // Per side: the rows, their origins, the cleanup queue.
  RowArena arena[2] = {RowArena(kFirstChunkBytes), RowArena(kFirstChunkBytes)};
  std::vector<JoinRowOrigin> origins[2];
  // By origin: the fields held (IntervalJoinRowSink::FieldsRead), empty when all are.
  std::vector<std::vector<uint8_t>> reads[2];
  uint32_t last_origin[2] = {0, 0};
  CleanupQueue queue[2];

  // Drain's and Renumber's scratch.
  struct Saturated {
    uint32_t seq;
    int side;
    Entry entry;
  };
  std::vector<Saturated> saturated;

  Impl(const IntervalJoinOptions& o, IntervalJoinRowSink& s)
      : bounds(o.bounds),
        stay{o.stay[0], o.stay[1]},
        left_once(o.left_once),
        renumber_at(std::min<uint32_t>(o.renumber_at, uint32_t{1} << 31)),
        sink(s) {}

  ~Impl() {
    for (uint32_t k = 0; k < keys.slots().size(); ++k) keys[k].Free();
  }

  int64_t Cleanup(int side, int64_t ts) const noexcept {
    if (stay[side] == IntervalJoinOptions::kNeverLeaves) return kMax;
    return SaturatingAdd(ts, stay[side]);
  }

  IntervalJoinRow Held(int side, const Entry& e) noexcept { return Held(side, e.row); }
  IntervalJoinRow Held(int side, HeldRow row) noexcept {
    return IntervalJoinRow(arena[side].Data(row), origins[side].data());
  }

  // Inline for the usual case, the same origin as the side's last row.
  [[gnu::always_inline]] uint32_t OriginOf(int side, const topology::StreamSchema* schema,
                                           int task) {
    const std::vector<JoinRowOrigin>& table_of = origins[side];
    if (const uint32_t last = last_origin[side];
        last < table_of.size() && table_of[last].schema == schema && table_of[last].task == task) {
      return last;
    }
    return FindOrigin(side, schema, task);
  }
  [[gnu::noinline]] uint32_t FindOrigin(int side, const topology::StreamSchema* schema, int task) {
    std::vector<JoinRowOrigin>& table_of = origins[side];
    auto same = [&](const JoinRowOrigin& o) { return o.schema == schema && o.task == task; };
    const auto at = static_cast<std::size_t>(std::find_if(table_of.begin(), table_of.end(), same) -
                                             table_of.begin());
    if (at == table_of.size()) {
      table_of.push_back({schema, task});
      std::vector<uint8_t> read = sink.FieldsRead(*schema);
      if (std::find(read.begin(), read.end(), 0) == read.end()) read.clear();
      reads[side].push_back(std::move(read));
    }
    last_origin[side] = static_cast<uint32_t>(at);
    return last_origin[side];
  }

  // The tuple or batch row packed into the side's arena.
  HeldRow Pack(int side, const Tuple& t) { return Pack(side, t, t.GetSourceTask()); }
  template <class Source>
  HeldRow Pack(int side, const Source& source, int task) {
    const uint32_t origin = OriginOf(side, source.schema(), task);
    const std::vector<uint8_t>& read = reads[side][origin];
    // A tracked row is whole: it is acked as itself. A mask that does not fit the row (a tuple of
    // another size than its stream's) is not used either.
    const bool project = !read.empty() && read.size() == source.size() && !Tracked(source);
    return PackInto(arena[side], source, origin, project ? read.data() : nullptr);
  }
  static bool Tracked(const Tuple& t) noexcept {
    return !topology::TupleAccess::Ack(t).anchors.empty();
  }
  static bool Tracked(const topology::RowRef& r) noexcept { return !r.anchors().empty(); }

  // The tuple joins as itself and is packed afterwards, with the ack value its pairs gave it.
  void Add(int side, const KeyRef& key, uint64_t hash, int64_t ts, const Tuple& t) {
    AddElement(
        side, key, hash, ts, IntervalJoinRow(t), [&] { return Pack(side, t); }, [] {});
  }

  // A batch row is packed first and joins as that held row (emits fold their ack values into
  // it); one that is not kept is released again.
  template <class Key>
  void Add(int side, const Key& key, uint64_t hash, int64_t ts, const topology::RowRef& r,
           int task) {
    const HeldRow row = Pack(side, r, task);
    AddElement(
        side, key, hash, ts, Held(side, row), [&] { return row; },
        [&] { arena[side].Release(row); });
  }

  // Joins `ours` with the other side's elements in the interval, then stores the row store()
  // gives; a left-once element joined on arrival leaves at once instead, and discard() drops it.
  template <class Key, class Store, class Discard>
  void AddElement(int side, const Key& key, uint64_t hash, int64_t ts, const IntervalJoinRow& ours,
                  Store store, Discard discard) {
    if (next_seq >= renumber_at) Renumber();
    const uint32_t k = keys.FindOrInsert(key, hash);
    const uint32_t seq = next_seq++;
    const int o = 1 - side;
    // The other side's timestamps that pair with ts.
    const int64_t lo =
        side == 0 ? SaturatingAdd(ts, bounds.lower) : SaturatingAdd(ts, Negate(bounds.upper));
    const int64_t hi =
        side == 0 ? SaturatingAdd(ts, bounds.upper) : SaturatingAdd(ts, Negate(bounds.lower));
    KeyState& ks = keys[k];
    const uint32_t n = ks.Size(o);
    const bool once = left_once && side == 0;
    const bool filters = sink.filters_pairs();
    bool matched = false;
    // In-order data probes near the back: look there first.
    if (n > 0 && ks.At(o, n - 1).ts >= lo) {
      uint32_t i = ks.At(o, 0).ts >= lo ? 0 : ks.LowerBound(o, lo);
      for (; i < n; ++i) {
        Entry& it = ks.At(o, i);
        if (it.ts > hi) break;
        if (left_once && side == 1 && it.matched()) continue;  // that left element is done
        const IntervalJoinRow theirs = Held(o, it);
        if (filters && !(side == 0 ? sink.PairsRows(ours, theirs) : sink.PairsRows(theirs, ours))) {
          continue;
        }
        it.Match();
        matched = true;
        const int64_t pair_ts = std::max(ts, it.ts);
        if (side == 0) {
          sink.JoinedRows(ours, theirs, pair_ts);
        } else {
          sink.JoinedRows(theirs, ours, pair_ts);
        }
        if (once) break;
      }
    }
    if (once && matched) {
      // Joined on arrival: nothing later can change its output, so it is not kept.
      sink.LeftRow(JoinSide::kLeft, ours, ts, true);
      discard();
      if (ks.empty()) keys.Forget(k);
      return;
    }
    Entry e;
    e.ts = ts;
    e.row = store();
    e.order = seq << 1 | (matched ? 1 : 0);
    ks.Insert(side, e);
    ++held[side];
    const int64_t cleanup = Cleanup(side, ts);
    if (cleanup == kMin) {
      ++saturated_low;
    } else if (cleanup == kMax) {
      ++saturated_high;
    } else {
      Queue(side, cleanup, seq, k);
    }
  }

  // A side's next element to leave, worked out when the queue changed, else kept: in-order data
  // pushes behind it, and Release looks at both sides after every element it lets out.
  struct Next {
    bool known = false;  // the fields below are up to date
    bool any = false;    // the side has a queued element
    bool heap = false;   // it is the heap's front, else the FIFO's
    int64_t cleanup = 0;
    uint32_t seq = 0;
    uint32_t key = 0;
  };
  Next next[2];

  // Inline: once per element added.
  [[gnu::always_inline]] void Queue(int side, int64_t cleanup, uint32_t seq, uint32_t k) {
    const bool heap = queue[side].Push(cleanup, seq, k);
    Next& n = next[side];
    if (n.known && (!n.any || CleanupQueue::Before(cleanup, seq, n.cleanup, n.seq))) {
      n = Next{true, true, heap, cleanup, seq, k};
    }
  }

  const Next& Front(int side) {
    Next& n = next[side];
    if (n.known) return n;
    const CleanupQueue& q = queue[side];
    n = Next{true, false, false, 0, 0, 0};
    if (!q.fifo_empty()) {
      n.key = q.fifo_front();
      const Entry& e = keys[n.key].At(side, 0);
      n.cleanup = Cleanup(side, e.ts);
      n.seq = e.seq();
      n.any = true;
    }
    // On a tie (the same element) the heap's: it is the one to pop.
    if (const CleanupQueue::Timer* t = q.heap_front();
        t != nullptr && (!n.any || !CleanupQueue::Before(n.cleanup, n.seq, t->cleanup, t->seq))) {
      n = Next{true, true, true, t->cleanup, t->seq, t->key};
    }
    return n;
  }

  void Leave(int side, const Entry& e) {
    sink.LeftRow(side == 0 ? JoinSide::kLeft : JoinSide::kRight, Held(side, e), e.ts, e.matched());
    arena[side].Release(e.row);
  }

  // Lets out, in (cleanup, arrival) order, every queued element whose cleanup time is below
  // `until`.
  void Release(int64_t until) {
    if (saturated_low > 0) ReleaseSaturated(true);
    for (;;) {
      const Next& l = Front(0);
      const Next& r = Front(1);
      if (!l.any && !r.any) return;
      const int side =
          !r.any || (l.any && CleanupQueue::Before(l.cleanup, l.seq, r.cleanup, r.seq)) ? 0 : 1;
      const Next n = next[side];
      if (n.cleanup >= until) return;
      if (n.heap) {
        queue[side].PopHeap();
      } else {
        queue[side].PopFifo();
      }
      next[side].known = false;
      KeyState& ks = keys[n.key];
      const Entry e = ks.At(side, 0);
      ks.PopFront(side);
      --held[side];
      Leave(side, e);
      if (ks.empty()) keys.Forget(n.key);
    }
  }

  // Lets out the elements whose cleanup time saturated low (the first of their buffers) or high
  // (the last), in arrival order.
  void ReleaseSaturated(bool low) {
    saturated.clear();
    for (uint32_t k = 0; k < keys.slots().size(); ++k) {
      const KeyState& ks = keys[k];
      if (!ks.in_table) continue;
      for (int side = 0; side < 2; ++side) {
        const uint32_t n = ks.Size(side);
        for (uint32_t j = 0; j < n; ++j) {
          const uint32_t i = low ? j : n - 1 - j;
          const Entry& e = ks.At(side, i);
          if (Cleanup(side, e.ts) != (low ? kMin : kMax)) break;
          saturated.push_back({e.seq(), side, e});
        }
      }
    }
    std::sort(saturated.begin(), saturated.end(),
              [](const Saturated& a, const Saturated& b) { return a.seq < b.seq; });
    for (const Saturated& s : saturated) Leave(s.side, s.entry);
    // Then out of the buffers (the sink has seen them all).
    for (uint32_t k = 0; k < keys.slots().size(); ++k) {
      KeyState& ks = keys[k];
      if (!ks.in_table || ks.empty()) continue;
      for (int side = 0; side < 2; ++side) {
        uint32_t gone = 0;
        const uint32_t n = ks.Size(side);
        while (gone < n &&
               Cleanup(side, ks.At(side, low ? gone : n - 1 - gone).ts) == (low ? kMin : kMax)) {
          ++gone;
        }
        if (low) {
          ks.PopFront(side, gone);
        } else {
          ks.PopBack(side, gone);
        }
        held[side] -= gone;
      }
      if (ks.empty()) keys.Forget(k);
    }
    (low ? saturated_low : saturated_high) = 0;
  }

  // Numbers the held elements 0, 1, ... in arrival order, so arrival numbers fit 31 bits however
  // long the state runs.
  void Renumber() {
    std::vector<uint32_t> seqs;
    seqs.reserve(held[0] + held[1]);
    for (const KeyState& ks : keys.slots()) {
      if (!ks.in_table) continue;
      for (int side = 0; side < 2; ++side) {
        for (uint32_t i = 0; i < ks.Size(side); ++i) seqs.push_back(ks.At(side, i).seq());
      }
    }
    std::sort(seqs.begin(), seqs.end());
    // The new number of `seq`: how many held elements arrived before it.
    auto renumber = [&](uint32_t seq) {
      return static_cast<uint32_t>(std::lower_bound(seqs.begin(), seqs.end(), seq) - seqs.begin());
    };
    for (uint32_t k = 0; k < keys.slots().size(); ++k) {
      KeyState& ks = keys[k];
      if (!ks.in_table) continue;
      for (int side = 0; side < 2; ++side) {
        for (uint32_t i = 0; i < ks.Size(side); ++i) {
          Entry& e = ks.At(side, i);
          e.order = renumber(e.seq()) << 1 | (e.order & 1);
        }
      }
    }
    for (CleanupQueue& q : queue) q.Renumber(renumber);
    for (Next& n : next) n.known = false;
    next_seq = static_cast<uint32_t>(seqs.size());
  }

  void Drain() {
    Release(kMax);  // every queued cleanup time is below kMax
    if (saturated_high > 0) ReleaseSaturated(false);
    keys.Rebuild(16);  // nothing is held: forget every key
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

IntervalJoinState::IntervalJoinState(IntervalBounds bounds, IntervalJoinRowSink& sink)
    : impl_(std::make_unique<Impl>(FlinkOptions(bounds), sink)) {}

IntervalJoinState::IntervalJoinState(IntervalJoinRowSink& sink, const IntervalJoinOptions& options)
    : impl_(std::make_unique<Impl>(options, sink)) {}

IntervalJoinState::~IntervalJoinState() = default;

void IntervalJoinState::Add(JoinSide side, const KeyRef& key, uint64_t hash, int64_t ts,
                            const Tuple& tuple) {
  impl_->Add(static_cast<int>(side), key, hash, ts, tuple);
}

void IntervalJoinState::Add(JoinSide side, const KeyRef& key, uint64_t hash, int64_t ts,
                            const topology::RowRef& row, int source_task) {
  impl_->Add(static_cast<int>(side), key, hash, ts, row, source_task);
}

void IntervalJoinState::Add(JoinSide side, IntKey key, int64_t ts, const topology::RowRef& row,
                            int source_task) {
  impl_->Add(static_cast<int>(side), key, HashKey(key), ts, row, source_task);
}

void IntervalJoinState::Advance(int64_t watermark) {
  if (watermark <= impl_->watermark) return;
  impl_->watermark = watermark;
  impl_->Release(watermark);
}

void IntervalJoinState::Drain() { impl_->Drain(); }

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
  const int s = static_cast<int>(side);
  for (const KeyState& k : impl_->keys.slots()) {
    if (!k.in_table) continue;
    for (uint32_t i = 0; i < k.Size(s); ++i) out.push_back(k.At(s, i).ts);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace tempest::bolts

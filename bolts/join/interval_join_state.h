#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bolts/join/interval_join_row.h"
#include "bolts/join/join_key.h"
#include "tempest/joins.h"
#include "topology/row_batch.h"
#include "topology/tuple.h"

namespace tempest::bolts {

// An interval join's bounds, inclusive: pairs satisfy left.ts + lower <= right.ts <= left.ts +
// upper (an exclusive end is moved inwards by 1 ms before it gets here).
struct IntervalBounds {
  int64_t lower = 0;
  int64_t upper = 0;
};

// Where the state's results go. Calls come from inside Add / Advance / Drain; a receiver must not
// call back into the state. Rows are shown as IntervalJoinRow: the tuple being added, or a held
// row, packed, read only as far as the receiver asks.
class IntervalJoinRowSink {
 public:
  virtual ~IntervalJoinRowSink() = default;
  // Whether PairsRows is asked about candidate pairs; when not (the default), every pair within
  // the bounds joins without a call.
  bool filters_pairs() const noexcept { return filters_pairs_; }
  // A pair within the bounds; `ts` is the pair's event time, max(left ts, right ts).
  virtual void JoinedRows(const IntervalJoinRow& left, const IntervalJoinRow& right,
                          int64_t ts) = 0;
  // An element leaves the state (`matched`: it was part of at least one pair); its row is
  // released after the call.
  virtual void LeftRow(JoinSide side, const IntervalJoinRow& row, int64_t ts, bool matched) = 0;
  // Whether two elements of one key within the bounds pair up: a further condition on the pair
  // (the symmetric join's post-join filter). Only pairs it accepts are joined and mark their
  // elements matched.
  virtual bool PairsRows(const IntervalJoinRow& left, const IntervalJoinRow& right) {
    (void)left;
    (void)right;
    return true;
  }
  // The fields of `stream` the receiver reads from a row, one flag per field, or empty: all.
  // The state holds only those of an untracked row (the others as null); a tracked row is held
  // whole, as it is acked as itself. Asked once per stream and sending task.
  virtual std::vector<uint8_t> FieldsRead(const topology::StreamSchema& stream) const {
    (void)stream;
    return {};
  }

 protected:
  void SetFiltersPairs(bool filters) noexcept { filters_pairs_ = filters; }

 private:
  bool filters_pairs_ = false;
};

// An IntervalJoinRowSink for receivers that read Tuples: each held row is unpacked whole (values
// and ack metadata) into a scratch tuple for the call, and the ack value that emits anchored to
// it added goes back into the row.
class IntervalJoinSink : public IntervalJoinRowSink {
 public:
  IntervalJoinSink() noexcept { SetFiltersPairs(true); }  // Pairs may be overridden
  // A pair within the bounds; `ts` is the pair's event time, max(left ts, right ts).
  virtual void Joined(const topology::Tuple& left, const topology::Tuple& right, int64_t ts) = 0;
  // An element leaves the state (`matched`: it was part of at least one pair). The tuple is the
  // receiver's to move from.
  virtual void Left(JoinSide side, topology::Tuple& tuple, int64_t ts, bool matched) = 0;
  // As PairsRows.
  virtual bool Pairs(const topology::Tuple& left, const topology::Tuple& right) {
    (void)left;
    (void)right;
    return true;
  }

  void JoinedRows(const IntervalJoinRow& left, const IntervalJoinRow& right, int64_t ts) final;
  void LeftRow(JoinSide side, const IntervalJoinRow& row, int64_t ts, bool matched) final;
  bool PairsRows(const IntervalJoinRow& left, const IntervalJoinRow& right) final;

 private:
  const topology::Tuple& AsTuple(const IntervalJoinRow& row, int i);
  topology::Tuple scratch_[2];
};

// How long elements stay and what a left element pairs with, when they are not Flink's.
struct IntervalJoinOptions {
  IntervalBounds bounds;  // the timestamps that may pair (kMin / kMax ends: unbounded)
  // An element of a side leaves once the watermark is above ts + stay; kNeverLeaves: only at
  // Drain.
  static constexpr int64_t kNeverLeaves = INT64_MAX;
  int64_t stay[2] = {0, 0};
  // A left element needs one partner only (semi and anti joins): it joins at most once — on
  // arrival, then it leaves at once, matched, without being stored; or with the first right
  // element that pairs with it, after which no right element sees it.
  bool left_once = false;
  // Arrival numbers are 31 bits; past this many arrivals the held elements are renumbered (a
  // test lowers it to exercise that).
  uint32_t renumber_at = uint32_t{1} << 31;
};

// The buffers of an interval join (Flink's IntervalJoinOperator state), with Tempest's watermark
// (Storm's): after watermark W no tuple below W arrives, so a tuple at W is not late. Per key and
// side the elements are kept ordered by timestamp, so a probe is a range lookup. An element leaves
// once the watermark is above its cleanup time: ts + max(upper, 0) on the left, ts + max(-lower,
// 0) on the right (Flink's timers; Flink's Watermark(t) promises nothing at or below t, so its
// t is our t + 1). Elements leave in order of cleanup time, then arrival. A key is forgotten
// as soon as both its buffers are empty, so the state is bounded by the interval, not by the
// input. With IntervalJoinOptions the stays, the probe range,
// a pair filter (IntervalJoinRowSink::PairsRows) and left-once matching are the caller's (the
// symmetric join's append mode); the rest is the same.
//
// Memory: a held element is its row packed (packed_row.h: origin, ack anchors, the fields the
// sink reads) in its side's RowArena, a 16-byte entry (timestamp, row, arrival number, matched)
// in its key's timestamp-ordered buffer of that side (the first entry inline in the key's slot,
// more in a ring), and 4 bytes in its side's cleanup queue; a key holding elements, its 48-byte
// slot and its packed values (16 bytes, more for a long key). A probe searches the entries and
// reads only the rows that pair. Single-threaded.
class IntervalJoinState {
 public:
  IntervalJoinState(IntervalBounds bounds, IntervalJoinRowSink& sink);
  // Stays and pairing as `options` say (the symmetric join's append mode).
  IntervalJoinState(IntervalJoinRowSink& sink, const IntervalJoinOptions& options);
  ~IntervalJoinState();
  IntervalJoinState(const IntervalJoinState&) = delete;
  IntervalJoinState& operator=(const IntervalJoinState&) = delete;

  // Joins the tuple with the other side's elements of `key` (its parts, not null; `hash` =
  // HashKey(key)) in the interval, in their timestamp order, then stores a packed copy of it,
  // with the ack value those pairs' emits gave it. Lateness is the caller's check (IsLate): this
  // never refuses an element.
  void Add(JoinSide side, const KeyRef& key, uint64_t hash, int64_t ts,
           const topology::Tuple& tuple);
  // The same for a batch row sent by `source_task`: it is packed first and shown to the sink as
  // a held row (IntervalJoinRow::added() is null).
  void Add(JoinSide side, const KeyRef& key, uint64_t hash, int64_t ts, const topology::RowRef& row,
           int source_task);
  // The same for a batch row whose key is one integer (the same key as a KeyRef of that value).
  void Add(JoinSide side, IntKey key, int64_t ts, const topology::RowRef& row, int source_task);
  // Raises the watermark (never lowers it) and lets out every element it has passed.
  void Advance(int64_t watermark);
  // Lets every element out (end of the input), in the same order as Advance would.
  void Drain();

  // Strictly below the watermark (none is late before the first Advance).
  bool IsLate(int64_t ts) const noexcept;
  int64_t watermark() const noexcept;
  // The time after which an element of `side` at `ts` leaves.
  int64_t CleanupTime(JoinSide side, int64_t ts) const noexcept;

  std::size_t size(JoinSide side) const noexcept;
  std::size_t keys() const noexcept;
  // The timestamps a side holds, ascending (for tests: Flink's buffer assertions).
  std::vector<int64_t> Timestamps(JoinSide side) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tempest::bolts

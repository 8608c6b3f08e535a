#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "bolts/expression/bound_expression.h"
#include "bolts/join/interval_join_state.h"
#include "bolts/join/join_key.h"
#include "topology/tuple.h"

namespace tempest::bolts {

// A changelog row's kind (Flink's RowKind; Tempest's `_op`): +I, -U, +U, -D.
enum class RowKind : uint8_t { kInsert, kUpdateBefore, kUpdateAfter, kDelete };

// "+I" → kInsert, and so on; nullopt for anything else.
std::optional<RowKind> ParseRowKind(std::string_view text) noexcept;
std::string_view RowKindName(RowKind kind) noexcept;
inline bool IsAccumulate(RowKind k) noexcept {
  return k == RowKind::kInsert || k == RowKind::kUpdateAfter;
}

// How one side of a changelog join stores its rows.
struct ChangelogSide {
  bool outer = false;   // preserved: its unmatched rows are emitted padded
  bool unique = false;  // the join key is the side's primary key: one row per key, replaced
  int64_t ttl_ms = 0;   // a row expires at last write + ttl (processing time); 0: never
  int op_field = -1;    // the `_op` field's index in this side's tuples (not part of a row's
                        // identity); -1: none
};

// Where a changelog join's output goes: `left` or `right` is null in a padded row. The pointers
// are valid during the call only (a stored row is rebuilt into a scratch tuple for it, with the
// stream it came on), and the sink must not call back into the state.
class ChangelogJoinSink {
 public:
  virtual ~ChangelogJoinSink() = default;
  virtual void Emit(RowKind kind, const topology::Tuple* left, const topology::Tuple* right) = 0;
};

// The state of Flink's unbounded streaming join (StreamingJoinOperator) in changelog mode:
// per join key and side the rows (with a count per identical row, or one row per key on a
// `unique` side), and on an outer side each row's number of associations. Process applies
// Flink's decision table (docs/notes/symmetric-hash-join-reference.md, A.3) with its newest
// counting rule (a replacing row on a unique side does not count twice): on accumulate, -D of
// the other side's padded rows first, then the joined rows; on retract, the joined rows first,
// then +I of the padded rows that lost their last match. Only an inner join passes -U/+U
// through; outer joins emit +I and -D.
//
// TTL: a row expires at its last write + its side's ttl_ms (processing time; an association
// change is a write, as in Flink), silently (no retraction, as Flink). Expiry is active: each
// side keeps a time-ordered queue with at most one entry per key, and Process (before its row)
// and Expire drop every row whose time has come, so the state is bounded by what was written in
// the last TTL, also for keys never seen again.
//
// Memory: a key's rows of one side sit packed back to back in one block (a compact encoding of
// the values, about the size of their msgpack form, plus 8 bytes of count and associations and 8
// of last write with a TTL); keys are found through a flat open-addressing table, their values
// packed apart. A probe reads the rows in sequence; a matched row is rebuilt into a scratch
// tuple for the condition and the sink. Single-threaded.
class ChangelogJoinState {
 public:
  // `pairs`: the condition candidate pairs must meet (evaluated with {left, right}); null: all
  // pairs of a key match. It must outlive the state.
  ChangelogJoinState(ChangelogSide left, ChangelogSide right, const BoundExpression* pairs,
                     ChangelogJoinSink& sink);
  ~ChangelogJoinState();
  ChangelogJoinState(const ChangelogJoinState&) = delete;
  ChangelogJoinState& operator=(const ChangelogJoinState&) = delete;

  // One input row of `side` with join key `key` (not null) at processing time `now`. Time may
  // go back (a wall clock): each row still expires at its own last write + TTL.
  void Process(JoinSide side, RowKind kind, const KeyRef& key, const topology::Tuple& row,
               int64_t now);

  // Drops, silently, every row expired at `now` (processing time, as given to Process; Process
  // does it too). For a bolt's ticks, so rows expire while no input arrives.
  void Expire(int64_t now);

  // Rows a side holds (identical rows once each), expired ones never counted.
  std::size_t rows(JoinSide side) const noexcept;
  // Keys that hold a row on either side.
  std::size_t keys() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tempest::bolts

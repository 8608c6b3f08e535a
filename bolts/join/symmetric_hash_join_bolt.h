#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bolts/join/join_inputs.h"
#include "bolts/windowing/windowed_bolt.h"
#include "tempest/joins.h"
#include "topology/bolt.h"
#include "topology/grouping.h"
#include "topology/topology_spec.h"

namespace tempest::bolts {

class SymmetricJoinRunner;  // one mode's half of the bolt (symmetric_join_runner.h)

// What a condition and the keys let an append-mode join evict (join_time_bounds.h): per side,
// how long after its own timestamp a row may still pair (a row of side s leaves once the
// watermark is above ts + stay[s]); none: it never leaves before the end of the input.
struct SymmetricAppendEviction {
  std::optional<int64_t> stay[2];
  // The other side's times a left row at ts pairs with: [ts + lower, ts + upper] (unbounded
  // ends: INT64_MIN / INT64_MAX).
  int64_t lower = INT64_MIN;
  int64_t upper = INT64_MAX;
};

// What needs no topology: both sides named (distinctly) with keys of as many parts, a select
// (without a plain `_op` in changelog mode: every output gets one), a condition that parses, a
// non-negative TTL; settings of the other mode refused (event time in changelog mode, TTL and
// `unique` in append mode); in append mode both sides' event time and valid watermark settings.
// The semi and anti joins exist in append mode only. Throws std::invalid_argument
// (ExpressionError for the condition).
void ValidateSymmetricHashJoinBoltConfig(const SymmetricHashJoinBoltConfig& config);

// The checks against the topology: the inputs are the two sides, each side's streams have the
// same fields, keys, select and condition resolve, and with parallelism > 1 each side is
// fields-grouped on its key (or global). In append mode: each side declares its timestamp
// field, a semi or anti join selects left fields only, and every preserved side can be evicted
// (Spark's check: otherwise its padded rows could never be emitted; UnboundedAppendJoinError).
// Throws std::invalid_argument.
void ValidateSymmetricHashJoinInputs(
    const SymmetricHashJoinBoltConfig& config, int parallelism,
    const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs,
    const std::vector<topology::GroupingSpec>& groupings);

// The select resolves against the inputs, and a semi or anti join's reads the left input only.
// Throws std::invalid_argument.
void ValidateSymmetricHashJoinSelect(
    const SymmetricHashJoinBoltConfig& config,
    const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs);

// An append-mode outer, semi or anti join whose preserved side could never leave the state.
class UnboundedAppendJoinError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Append mode: the eviction the keys and condition allow (the inputs as above). Throws
// std::invalid_argument (ExpressionError) for a condition that does not bind.
SymmetricAppendEviction PlanSymmetricAppendEviction(
    const SymmetricHashJoinBoltConfig& config,
    const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs);

// Append mode holds a row of an evicted side, unacked, up to its stay + lag_ms +
// watermark_interval_ms: with acking on that must fit in topology.message.timeout.secs, or held
// rows time out and are replayed. Throws std::invalid_argument.
void ValidateSymmetricHashJoinFitsTopology(const SymmetricHashJoinBoltConfig& config,
                                           const SymmetricAppendEviction& eviction,
                                           const topology::TopologyConfig& topo);

// An unbounded stream-stream join (docs/symmetric-hash-join.md). Every input row is stored under
// its key and joined with the other side's rows of that key that meet the condition's pair
// filter. A row failing its side's pre-join filter, or with a null key, is never stored: on a
// preserved side it is emitted at once, padded.
//
// Changelog mode (Flink's StreamingJoinOperator, ChangelogJoinState): outputs are the `select`ed
// fields plus `_op` (+I -U +U -D). Inputs may carry `_op` (absent: +I; any other value is
// reported, acked and dropped); a filtered preserved-side row is padded +I when it accumulates,
// -D when it retracts. Inputs are acked as they are processed and outputs anchored to the input
// that caused them; the state is not checkpointed, so a crash loses it. Nothing is emitted at
// the end of the input.
//
// Append mode (Spark's StreamingSymmetricHashJoinExec over IntervalJoinState): event time with
// Storm's watermark; late rows (below it) are dropped and counted. A side's rows leave when the
// watermark makes a pair impossible (SymmetricAppendEviction), or at the end of the input; a
// preserved side's row that never matched is then emitted padded (left_anti: the left row),
// anchored to it. left_semi emits a left row once, at its first match. Rows of a side that is
// evicted are acked when they leave (so a crash replays them); the others when processed. Inputs
// with an `_op` other than +I are reported, acked and dropped.
//
// Takes a batch at a time: in append mode a row of a side that is evicted and has no filter of
// its own is packed from its cells and joined as a held row; other rows, and changelog mode's,
// are executed as tuples.
class SymmetricHashJoinBolt final : public topology::BatchBolt {
 public:
  // Throws std::invalid_argument (ValidateSymmetricHashJoinBoltConfig). `clock`: processing
  // time for state_ttl_ms.
  explicit SymmetricHashJoinBolt(SymmetricHashJoinBoltConfig config,
                                 WindowClock clock = SystemMillis);
  ~SymmetricHashJoinBolt() override;

  void Prepare(const topology::TopologyContext& context,
               topology::OutputCollector& collector) override;
  void Execute(const topology::Tuple& input) override;
  void ExecuteOwned(topology::Tuple& input) override;
  void ExecuteBatch(const topology::RowBatch& rows, topology::BatchCollector& out) override;
  void OnSourceEnded(const std::string& component) override;
  void OnEndOfStream() override;
  std::chrono::milliseconds TickInterval() const override;
  void OnTick() override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

 private:
  SymmetricHashJoinBoltConfig config_;
  WindowClock clock_;
  std::unique_ptr<SymmetricJoinRunner> impl_;
};

}  // namespace tempest::bolts

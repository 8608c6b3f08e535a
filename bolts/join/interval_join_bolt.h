#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bolts/join/interval_join_state.h"
#include "bolts/join/join_inputs.h"
#include "bolts/windowing/windowed_bolt.h"
#include "tempest/joins.h"
#include "topology/bolt.h"
#include "topology/grouping.h"
#include "topology/topology_spec.h"

namespace tempest::bolts {

// The inclusive bounds the join uses (exclusive ends moved by 1 ms, as Flink).
IntervalBounds EffectiveBounds(const IntervalJoinBoltConfig& config) noexcept;

// Checks what needs no topology: both sides named (distinctly) with keys of as many parts, a
// select, Flink's "lowerBound <= upperBound must be fulfilled" (and a non-empty interval once
// exclusive ends are moved), event time on both sides, non-negative lag, interval and idle
// timeout. Throws std::invalid_argument.
void ValidateIntervalJoinBoltConfig(const IntervalJoinBoltConfig& config);

// Tuples stay in the join until the watermark passes their cleanup time, so with acking on the
// longest stay — max(upper, 0) or max(-lower, 0), plus lag_ms and watermark_interval_ms — must
// fit in topology.message.timeout.secs, or held tuples time out and are replayed. Skipped when
// acking is off. Throws std::invalid_argument.
void ValidateIntervalJoinFitsTopology(const IntervalJoinBoltConfig& config,
                                      const topology::TopologyConfig& topo);

// The checks against the topology: the inputs are exactly the two sides, each declares its key
// and timestamp field, the select resolves, and with parallelism > 1 each side is
// fields-grouped on its key (or global). Throws std::invalid_argument.
void ValidateIntervalJoinInputs(
    const IntervalJoinBoltConfig& config, int parallelism,
    const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs,
    const std::vector<topology::GroupingSpec>& groupings);

// Flink's interval join, with outer joins. Every tuple is stored under its key (IntervalJoinState)
// and joined at once with the other side's tuples of that key in the interval; each pair is
// `select`ed (`_ts` is the pair's event time, max of both; other fields as in JoinBolt) and
// anchored to both tuples. The watermark is Storm's (docs/contracts.md, "Event time"): late tuples
// (strictly below it) go to the side's late stream or are dropped and counted, acked either way,
// never joined or padded. A tuple leaves when the watermark passes its cleanup time, or at end of
// input; it is acked then, and in a left/right/full join a tuple of a preserved side that never
// matched is emitted once, padded with nulls, anchored to it. Tuples whose key is null match
// nothing (a preserved side's are emitted padded at once). Replays after the end of input join what
// arrives with them and leave at once. Takes a batch at a time: a row is packed from its cells
// and joined as a held row.
class IntervalJoinBolt final : public topology::BatchBolt {
 public:
  // `left_fields` / `right_fields`: the inputs' fields, which their late streams are declared
  // with (needed only when a late stream is configured). Throws std::invalid_argument
  // (ValidateIntervalJoinBoltConfig).
  explicit IntervalJoinBolt(IntervalJoinBoltConfig config, topology::Fields left_fields = {},
                            topology::Fields right_fields = {}, WindowClock clock = SystemMillis);
  ~IntervalJoinBolt() override;

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
  class Impl;
  IntervalJoinBoltConfig config_;
  topology::Fields late_fields_[2];
  WindowClock clock_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tempest::bolts

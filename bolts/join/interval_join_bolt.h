#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bolts/join/interval_join_state.h"
#include "bolts/join/join_bolt.h"
#include "bolts/windowing/windowed_bolt.h"
#include "topology/bolt.h"
#include "topology/grouping.h"
#include "topology/topology_spec.h"

namespace tempest::bolts {

// One side of an interval join (`left:` / `right:`).
struct IntervalJoinInput {
  std::string name;                  // the input's stream or source name (selector)
  std::vector<std::string> key;      // field descriptors, one per key part
  std::string timestamp_field = {};  // its event time; empty: the bolt's timestamp_field
  std::string late_stream = {};      // its late tuples go here; empty: the bolt's late_stream
};

// Config of IntervalJoinBolt (docs/contracts.md, "Join and window bolts"); the names are its YAML
// keys.
struct IntervalJoinBoltConfig {
  JoinSelector selector = JoinSelector::kSource;  // selector: stream|source
  IntervalJoinInput left;                         // left: {name, key, timestamp_field, late_stream}
  IntervalJoinInput right;                        // right: likewise
  int64_t lower_bound_ms = 0;                     // lower_bound_ms: right.ts >= left.ts + this
  int64_t upper_bound_ms = 0;                     // upper_bound_ms: right.ts <= left.ts + this
  bool lower_inclusive = true;                    // lower_inclusive (false: the end moves +1 ms)
  bool upper_inclusive = true;                    // upper_inclusive (false: the end moves -1 ms)
  JoinType type = JoinType::kInner;               // type: inner|left|right|full
  std::string select;                             // select: "a:x, b:y AS z, _ts"
  std::string output_stream = "default";          // output_stream
  std::string timestamp_field;                    // timestamp_field: both sides' event time
  int64_t lag_ms = 0;                             // lag_ms: watermark = min of maxima - lag
  int64_t watermark_interval_ms = 1000;           // watermark_interval_ms; 0: after every tuple
  int64_t idle_timeout_ms = 0;                    // idle_timeout_ms; 0: never idle
  std::string late_stream;                        // late_stream: both sides' late tuples
};

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
// arrives with them and leave at once.
class IntervalJoinBolt final : public topology::Bolt {
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

// The C++ way to the same config, with Flink's names:
//   IntervalJoinBoltBuilder(JoinSelector::kSource, {"shows", {"log_id"}, "ts"},
//                           {"clicks", {"log_id"}, "ts"})
//       .Between(0, 600'000)
//       .Type(JoinType::kLeft)
//       .Select("shows:log_id, clicks:ts AS click_ts, _ts")
//       .Build();   // a BoltFactory for TopologyBuilder::SetBolt
class IntervalJoinBoltBuilder {
 public:
  IntervalJoinBoltBuilder(JoinSelector selector, IntervalJoinInput left, IntervalJoinInput right);

  IntervalJoinBoltBuilder& Between(int64_t lower_ms, int64_t upper_ms);
  IntervalJoinBoltBuilder& LowerBoundExclusive();
  IntervalJoinBoltBuilder& UpperBoundExclusive();
  IntervalJoinBoltBuilder& Type(JoinType type);
  IntervalJoinBoltBuilder& Select(std::string fields);
  IntervalJoinBoltBuilder& WithOutputStream(std::string stream);
  IntervalJoinBoltBuilder& WithTimestampField(std::string field);
  IntervalJoinBoltBuilder& WithLag(int64_t lag_ms);
  IntervalJoinBoltBuilder& WithWatermarkInterval(int64_t interval_ms);
  IntervalJoinBoltBuilder& WithIdleTimeout(int64_t idle_timeout_ms);
  // Late tuples of both sides to `stream` (both sides have `fields`), or of one side only.
  IntervalJoinBoltBuilder& WithLateTupleStream(std::string stream, topology::Fields fields);
  IntervalJoinBoltBuilder& WithLateTupleStream(JoinSide side, std::string stream,
                                               topology::Fields fields);

  const IntervalJoinBoltConfig& config() const noexcept { return config_; }
  // Validates and returns a factory of IntervalJoinBolt instances (one per task).
  topology::BoltFactory Build() const;

 private:
  IntervalJoinBoltConfig config_;
  topology::Fields late_fields_[2];
};

}  // namespace tempest::bolts

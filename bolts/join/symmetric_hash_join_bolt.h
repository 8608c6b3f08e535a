#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bolts/join/join_bolt.h"
#include "bolts/windowing/windowed_bolt.h"
#include "topology/bolt.h"
#include "topology/grouping.h"

namespace tempest::bolts {

enum class SymmetricJoinType { kInner, kLeft, kRight, kFull, kLeftSemi, kLeftAnti };
enum class SymmetricJoinMode { kAppend, kChangelog };

// One side of a symmetric hash join (`left:` / `right:`).
struct SymmetricJoinInput {
  std::string name;                  // the input's stream or source name (selector)
  std::vector<std::string> key;      // field descriptors, one per key part
  std::string timestamp_field = {};  // event time (append mode)
  bool unique = false;               // the key is the side's primary key: one row per key
};

// Config of SymmetricHashJoinBolt (DESIGN.md 2.5); the names are its YAML keys.
struct SymmetricHashJoinBoltConfig {
  JoinSelector selector = JoinSelector::kSource;       // selector: stream|source
  SymmetricJoinInput left;                             // left: {name, key, timestamp_field, unique}
  SymmetricJoinInput right;                            // right: likewise
  SymmetricJoinType type = SymmetricJoinType::kInner;  // type
  SymmetricJoinMode mode = SymmetricJoinMode::kChangelog;  // mode: append|changelog
  std::string condition;                  // condition (docs/expressions.md); "": none
  int64_t state_ttl_ms = 0;               // state_ttl_ms: rows expire; 0: never
  std::string select;                     // select: as JoinBolt's
  std::string output_stream = "default";  // output_stream
};

// What needs no topology: both sides named (distinctly) with keys of as many parts, a select
// without a plain `_op` (every output gets one), a condition that parses, a non-negative TTL.
// Append mode and the semi and anti joins are not built yet: they are refused, saying so.
// Throws std::invalid_argument (ExpressionError for the condition).
void ValidateSymmetricHashJoinBoltConfig(const SymmetricHashJoinBoltConfig& config);

// The checks against the topology: the inputs are the two sides, each side's streams have the
// same fields, keys, select and condition resolve, and with parallelism > 1 each side is
// fields-grouped on its key (or global). Throws std::invalid_argument.
void ValidateSymmetricHashJoinInputs(
    const SymmetricHashJoinBoltConfig& config, int parallelism,
    const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs,
    const std::vector<topology::GroupingSpec>& groupings);

// An unbounded join in changelog mode (Flink's StreamingJoinOperator, ChangelogJoinState):
// every input row is stored under its key and joined with the other side's rows of that key
// that meet the condition's pair filter; outputs are the `select`ed fields plus `_op` (+I -U +U
// -D). Inputs may carry `_op` (absent: +I; any other value is reported, acked and dropped). A row
// failing its side's pre-join filter, or with a null key, is never stored: on a preserved side
// it is emitted at once, padded (+I when it accumulates, -D when it retracts). Inputs are acked
// as they are processed and outputs anchored to the input that caused them; the state is not
// checkpointed, so a crash loses it (docs/symmetric-hash-join.md). Nothing is emitted at the
// end of the input.
class SymmetricHashJoinBolt final : public topology::Bolt {
 public:
  // Throws std::invalid_argument (ValidateSymmetricHashJoinBoltConfig). `clock`: processing
  // time for state_ttl_ms.
  explicit SymmetricHashJoinBolt(SymmetricHashJoinBoltConfig config,
                                 WindowClock clock = SystemMillis);
  ~SymmetricHashJoinBolt() override;

  void Prepare(const topology::TopologyContext& context,
               topology::OutputCollector& collector) override;
  void Execute(const topology::Tuple& input) override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

 private:
  class Impl;
  SymmetricHashJoinBoltConfig config_;
  WindowClock clock_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tempest::bolts

#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bolts/join/join_inputs.h"
#include "bolts/join/symmetric_hash_join_bolt.h"
#include "bolts/windowing/batch_input.h"
#include "bolts/windowing/windowed_bolt.h"
#include "topology/bolt.h"

// Internal to SymmetricHashJoinBolt: the half of the bolt each mode implements, and what both
// halves share.
namespace tempest::bolts {

using SymmetricInputs = std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>;

// One mode of the bolt, made in Prepare; the bolt forwards its calls. Single-threaded.
class SymmetricJoinRunner {
 public:
  virtual ~SymmetricJoinRunner() = default;
  // `owned`: the same tuple, which may be moved from (ExecuteOwned); null from Execute.
  virtual void Handle(const topology::Tuple& input, topology::Tuple* owned) = 0;
  // A row of a batch: by default the tuple way (ExecuteAsTuple).
  virtual void Handle(const BatchInput& in) { in.out.ExecuteAsTuple(in.row); }
  virtual void OnTick() {}
  virtual void OnSourceEnded(const std::string& component) { (void)component; }
  virtual void OnEndOfStream() {}
};

std::unique_ptr<SymmetricJoinRunner> MakeChangelogJoinRunner(
    const SymmetricHashJoinBoltConfig& config, const topology::TopologyContext& context,
    topology::OutputCollector& out, WindowClock& clock);
std::unique_ptr<SymmetricJoinRunner> MakeAppendJoinRunner(const SymmetricHashJoinBoltConfig& config,
                                                          const topology::TopologyContext& context,
                                                          topology::OutputCollector& out,
                                                          WindowClock& clock);

// The join as the N-way JoinBolt plans it: left is `from`, right joins it.
JoinBoltConfig SymmetricAsJoinConfig(const SymmetricHashJoinBoltConfig& config);
// The fields of the streams of the input called `name` (they must all be the same: throws
// std::invalid_argument otherwise); empty if it has none.
topology::Fields SymmetricSideFields(const SymmetricHashJoinBoltConfig& config,
                                     const std::string& name, const SymmetricInputs& inputs);
// The bolt's inputs with their fields, and their groupings, from the context.
void SymmetricContextInputs(const topology::TopologyContext& context, SymmetricInputs& inputs,
                            std::vector<topology::GroupingSpec>& groupings);
// Sets the run summary's gauges of the rows each side holds now and at most.
void ReportSymmetricJoinState(topology::OutputCollector& out, const std::size_t rows[2],
                              const std::size_t peaks[2]);
// A side's timestamp field: its own, else the bolt's.
const std::string& SymmetricTimestampField(const SymmetricHashJoinBoltConfig& config, int side);

}  // namespace tempest::bolts

#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bolts/join/join_inputs.h"
#include "bolts/windowing/packed_windowed_bolt.h"
#include "bolts/windowing/window_config.h"
#include "bolts/windowing/windowed_bolt.h"
#include "tempest/joins.h"

namespace tempest::bolts {

class JoinAccumulator;

// Storm's checks, with its messages: a `select` is given, the clauses are valid
// (ValidateJoinClauses) and so is the window. Throws std::invalid_argument.
void ValidateJoinBoltConfig(const JoinBoltConfig& config);

// Storm's JoinBolt (a windowed bolt): every window is joined from scratch. The first input's
// tuples become result records in window order; every other input is hashed on its key once per
// window; the joins apply in declaration order, each probing with the key of the input it is
// joined `with`. inner: matches only; left: unmatched records padded with nulls; right: matches,
// then every unmatched tuple of the joined input padded for all earlier inputs; full: the left
// rows, then those padded rows. A record whose probe key is null is dropped (Storm), or with
// keep_null_probe_keys treated as matching nothing. Each output row is `select`ed (an unqualified
// field comes from the first input in join order that declares it; missing values are null) and
// anchored to exactly the tuples it joins. A tuple of an input the join does not name is
// reported (once per input) and ignored.
class JoinBolt final : public PackedWindowedBolt {
 public:
  // Throws std::invalid_argument (ValidateJoinBoltConfig).
  explicit JoinBolt(JoinBoltConfig config);
  ~JoinBolt() override;

  void Prepare(const topology::TopologyContext& context, PackedWindowCollector& collector) override;
  void Execute(const PackedWindow& window) override;
  // An input's key fields and the fields `select` takes from it (an input the join does not
  // name: all, for the error that shows its tuple).
  std::vector<uint8_t> FieldsRead(const topology::StreamSchema& stream) const override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

 private:
  JoinBoltConfig config_;
  std::unique_ptr<JoinAccumulator> accumulator_;
};

// The per-input late routes of a join config: `fields_of(name)` gives an input's fields.
std::vector<LateRoute> JoinLateRoutes(
    const JoinBoltConfig& config,
    const std::function<topology::Fields(const std::string& name)>& fields_of);

}  // namespace tempest::bolts

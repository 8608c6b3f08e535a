#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bolts/windowing/packed_windowed_bolt.h"
#include "bolts/windowing/window_config.h"
#include "bolts/windowing/windowed_bolt.h"
#include "tempest/joins.h"
#include "topology/grouping.h"
#include "topology/topology_spec.h"

namespace tempest::bolts {

// The most inputs a join takes (a window row's input is noted in a byte).
inline constexpr std::size_t kMaxJoinInputs = 254;

// Storm's checks, with its messages: a `select` is given; each input joins once ("'x' is already
// part of join. Cannot join with it more than once."), only with an earlier one ("Stream 'y' was
// not previously declared"); keys carry no ':' and have as many parts as their `with` key.
// Throws std::invalid_argument.
void ValidateJoinBoltConfig(const JoinBoltConfig& config);
// The part of it about `from` and `joins` (what a builder checks at each join call).
void ValidateJoinClauses(const JoinFrom& from, const std::vector<JoinClause>& joins);

// What a join needs of its inputs, checked against the topology: every input of the bolt is
// named in the join and every join name is an input (else: "... is not an input"); with
// parallelism > 1 every input is fields-grouped on exactly its join key, or global (else a
// tuple could miss its match in another task). `inputs[i]` has `groupings[i]`. Throws
// std::invalid_argument.
void ValidateJoinInputs(
    const JoinBoltConfig& config, int parallelism,
    const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs,
    const std::vector<topology::GroupingSpec>& groupings);

// The name an input is known by under `selector`.
const std::string& JoinInputName(JoinSelector selector, const topology::GlobalStreamId& stream);

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
  struct State;
  JoinBoltConfig config_;
  std::unique_ptr<State> state_;
};

// The per-input late routes of a join config: `fields_of(name)` gives an input's fields.
std::vector<LateRoute> JoinLateRoutes(
    const JoinBoltConfig& config,
    const std::function<topology::Fields(const std::string& name)>& fields_of);

}  // namespace tempest::bolts

#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tempest/joins.h"
#include "topology/fields.h"
#include "topology/grouping.h"
#include "topology/topology_spec.h"

// The join vocabulary the three join bolts share: how an input is named and which inputs and
// groupings a join accepts. The types are public (tempest/joins.h); planning a join against its
// inputs' fields is join_plan.h.
namespace tempest::bolts {

// The most inputs a join takes (a window row's input is noted in a byte).
inline constexpr std::size_t kMaxJoinInputs = 254;

// The name an input is known by under `selector`.
const std::string& JoinInputName(JoinSelector selector, const topology::GlobalStreamId& stream);

// Storm's checks of `from` and `joins`, with its messages: each input joins once ("'x' is already
// part of join. Cannot join with it more than once."), only with an earlier one ("Stream 'y' was
// not previously declared"); keys carry no ':' and have as many parts as their `with` key.
// Throws std::invalid_argument.
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

}  // namespace tempest::bolts

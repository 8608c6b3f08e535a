#pragma once

#include "topology/component_registry.h"
#include "topology/config_node.h"

namespace tempest::bolts {

// The SymmetricHashJoinBolt maker of the YAML loader (docs/contracts.md, "Join and window bolts"):
// reads `selector`, `left` and `right` ({name, key, timestamp_field, unique}), `type`, `mode`,
// `condition`, `state_ttl_ms`, `select` and `output_stream`, and checks everything a run would.
// Errors are ConfigError at the offending node (a condition's also give the character in it).
topology::BoltFactory MakeSymmetricHashJoinBolt(topology::ConfigReader& config,
                                                const topology::ComponentContext& context);

}  // namespace tempest::bolts

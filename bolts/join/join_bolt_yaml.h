#pragma once

#include "topology/component_registry.h"
#include "topology/config_node.h"

namespace tempest::bolts {

// The JoinBolt maker of the YAML loader (docs/contracts.md, "Join and window bolts"): reads
// `selector`, `from: {name, key}`, `joins: [{type, name, key, with}]` (`key` a field or a list of
// fields), `select`, `output_stream`, `null_probe_keys: drop|keep` and the window keys, and checks
// everything a run would: Storm's join errors, the inputs against the join names, fields grouping
// on the join key when parallelism > 1, every key and select field against the inputs' fields.
// Warns (logs) when the window slides. Errors are ConfigError at the offending node.
topology::BoltFactory MakeJoinBolt(topology::ConfigReader& config,
                                   const topology::ComponentContext& context);

}  // namespace tempest::bolts

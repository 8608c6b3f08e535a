#pragma once

#include "topology/component_registry.h"
#include "topology/config_node.h"

namespace tempest::bolts {

// The IntervalJoinBolt maker of the YAML loader (docs/contracts.md, "Join and window bolts"): reads
// `selector`, `left` and `right` ({name, key, timestamp_field, late_stream}), `lower_bound_ms`,
// `upper_bound_ms`, `lower_inclusive`, `upper_inclusive`, `type`, `select`, `output_stream` and the
// event-time keys, and checks everything a run would (bounds, event time, inputs, grouping, select,
// that held tuples fit in the message timeout). Errors are ConfigError at the offending node.
topology::BoltFactory MakeIntervalJoinBolt(topology::ConfigReader& config,
                                           const topology::ComponentContext& context);

}  // namespace tempest::bolts

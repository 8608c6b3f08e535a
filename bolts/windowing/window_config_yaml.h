#pragma once

#include "bolts/windowing/window_config.h"
#include "topology/component_registry.h"
#include "topology/config_node.h"

namespace tempest::bolts {

// Reads the window keys of a component config (docs/contracts.md, "Values and files" and "Join and
// window bolts"): `window: {type, length, slide}` (required), `timestamp_field`, `lag_ms`,
// `watermark_interval_ms`, `idle_timeout_ms` and a bolt-level `late_stream`, and checks them
// against the component's inputs (every input declares the timestamp field; a bolt-level late
// stream needs inputs with the same fields) and the topology's settings
// (ValidateWindowFitsTopology). Errors are ConfigError at the node.
WindowConfig ReadWindowConfig(topology::ConfigReader& config,
                              const topology::ComponentContext& context);

}  // namespace tempest::bolts

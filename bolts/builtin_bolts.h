#pragma once

#include "topology/component_registry.h"

namespace tempest::bolts {

// Registers the built-in bolts under their classNames (NullBolt, IdentityBolt, FileSink,
// StdoutSink, ChaosBolt, TestWordCounter, LogInfoBolt), each reading its YAML `config` into its
// config struct. Idempotent.
void RegisterBuiltinBolts(topology::ComponentRegistry& registry);

}  // namespace tempest::bolts

#pragma once

#include "topology/component_registry.h"

namespace tempest::spouts {

// Registers the built-in spouts under their classNames (GeneratorSpout, FileSpout,
// TestWordSpout), each reading its YAML `config` into its config struct. Idempotent.
void RegisterBuiltinSpouts(topology::ComponentRegistry& registry);

}  // namespace tempest::spouts

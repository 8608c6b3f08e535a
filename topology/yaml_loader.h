#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "topology/component_registry.h"
#include "topology/topology_spec.h"

namespace tempest::topology {

// How to load a topology file (the `tempest` command's loading flags).
// The largest topology file (or include, or --filter file) the loader reads by default: anything
// larger is likely a mistake (a device, a data file), refused before it can exhaust memory.
inline constexpr std::size_t kMaxTopologyFileBytes = 16 << 20;

struct LoadOptions {
  // --set KEY=VALUE, in order: defines property KEY for ${KEY} and overrides config KEY.
  std::vector<std::pair<std::string, std::string>> set;
  // --filter FILE: properties for ${...}: a .yaml/.yml map, or a Java .properties file.
  std::string filter_file;
  // --env-filter: ${ENV-NAME} reads environment variable NAME.
  bool env_filter = false;
  // --max-file-bytes: the largest topology, include or --filter file read.
  std::size_t max_file_bytes = kMaxTopologyFileBytes;
  // Where classNames are looked up and plugins register; nullptr: ComponentRegistry::Global().
  ComponentRegistry* registry = nullptr;
};

// Loads a Flux-shaped topology file (docs/contracts.md, "Topology files") into a validated
// TopologySpec: includes, ${...} substitution, plugins (loaded into the registry), every spout and
// bolt made by its registered className from its `config`, streams with their groupings. Nothing is
// started. Every error is a ConfigError "file:line:column: yaml.path: what was expected, what was
// found".
std::shared_ptr<const TopologySpec> LoadTopology(const std::string& file,
                                                 const LoadOptions& options = {});

}  // namespace tempest::topology

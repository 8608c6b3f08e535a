#pragma once

#include <string>

#include "topology/component_registry.h"

// Entry point of a Tempest plugin (.so): registers its spouts and bolts. Write, in one .cpp of
// the plugin:
//
//   TEMPEST_PLUGIN(registry) {
//     registry.AddBolt<SplitSentence>("SplitSentence");
//     registry.AddBolt("Threshold", [](ConfigReader& c, const ComponentContext&) { ... });
//   }
#define TEMPEST_PLUGIN(registry)                                                                \
  extern "C" void tempest_plugin_register_v1(::tempest::topology::ComponentRegistry& registry); \
  extern "C" void tempest_plugin_register_v1(::tempest::topology::ComponentRegistry& registry)

namespace tempest::topology {

inline constexpr const char* kPluginEntryPoint = "tempest_plugin_register_v1";

// dlopen()s a plugin and calls its entry point with `registry`. Throws std::runtime_error for a
// missing or unloadable file or a missing entry point, naming the file and what dlopen said.
// A plugin stays loaded for the life of the process.
void LoadPlugin(const std::string& path, ComponentRegistry& registry);

}  // namespace tempest::topology

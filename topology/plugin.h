#pragma once

#include <string>

#include "tempest/plugin.h"

namespace tempest::topology {

inline constexpr const char* kPluginEntryPoint = "tempest_plugin_register_v1";
inline constexpr const char* kPluginVersionSymbol = "tempest_plugin_version";

// dlopen()s a plugin and calls its entry point with `registry`. Throws std::runtime_error for a
// missing or unloadable file, a missing entry point, or a plugin built against a Tempest whose
// major.minor version differs from this one, naming the file and what was wrong.
// A plugin stays loaded for the life of the process.
void LoadPlugin(const std::string& path, ComponentRegistry& registry);

}  // namespace tempest::topology

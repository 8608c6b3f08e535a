#include "topology/plugin.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>
#include <string_view>

namespace tempest::topology {
namespace {

// "0.1" of "0.1.2".
std::string_view MajorMinor(std::string_view version) {
  const std::size_t first = version.find('.');
  if (first == std::string_view::npos) return version;
  return version.substr(0, version.find('.', first + 1));
}

// Refuses a plugin built against another major.minor version of Tempest: its classes would not
// match this library's.
void CheckVersion(const std::string& path, void* handle) {
  using Version = const char* (*)();
  auto version = reinterpret_cast<Version>(::dlsym(handle, kPluginVersionSymbol));
  if (version == nullptr) {
    throw std::runtime_error(fmt::format(
        "plugin \"{}\" does not say which Tempest it was built against (no {} symbol); this is "
        "Tempest {}: rebuild the plugin against it",
        path, kPluginVersionSymbol, LibraryVersion()));
  }
  const std::string_view built = version();
  if (MajorMinor(built) != MajorMinor(LibraryVersion())) {
    throw std::runtime_error(fmt::format(
        "plugin \"{}\" was built against Tempest {}; this is Tempest {} (major and minor "
        "versions must match): rebuild the plugin against it",
        path, built, LibraryVersion()));
  }
}

}  // namespace

void LoadPlugin(const std::string& path, ComponentRegistry& registry) {
  if (!std::filesystem::exists(path)) {
    throw std::runtime_error(fmt::format("plugin \"{}\" does not exist", path));
  }
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    throw std::runtime_error(fmt::format("cannot load plugin \"{}\": {}", path, ::dlerror()));
  }
  using Entry = void (*)(ComponentRegistry&);
  auto entry = reinterpret_cast<Entry>(::dlsym(handle, kPluginEntryPoint));
  if (entry == nullptr) {
    throw std::runtime_error(fmt::format(
        "plugin \"{}\" has no {} symbol: define it with TEMPEST_PLUGIN(registry) {{ ... }} "
        "from tempest/plugin.h",
        path, kPluginEntryPoint));
  }
  CheckVersion(path, handle);
  entry(registry);
}

}  // namespace tempest::topology

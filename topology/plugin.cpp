#include "topology/plugin.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

namespace tempest::topology {

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
        "from topology/plugin.h",
        path, kPluginEntryPoint));
  }
  entry(registry);
}

}  // namespace tempest::topology

// libFuzzer target: the topology loader on any file content. Every bad input must end in a
// ConfigError (or another std::exception with a message), never a crash, a hang or a blow-up.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <fstream>
#include <string>

#include "bolts/builtin_bolts.h"
#include "spouts/builtin_spouts.h"
#include "topology/component_registry.h"
#include "topology/yaml_loader.h"

namespace {

tempest::topology::ComponentRegistry& Registry() {
  static auto* registry = [] {
    auto* r = new tempest::topology::ComponentRegistry();
    tempest::spouts::RegisterBuiltinSpouts(*r);
    tempest::bolts::RegisterBuiltinBolts(*r);
    return r;
  }();
  return *registry;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const std::string file = "/tmp/tempest-yaml-fuzz-" + std::to_string(::getpid()) + ".yaml";
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  tempest::topology::LoadOptions options;
  options.registry = &Registry();
  try {
    tempest::topology::LoadTopology(file, options);
  } catch (const std::exception&) {
    // A clear error is the expected outcome of most inputs.
  }
  return 0;
}

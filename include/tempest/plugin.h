#pragma once

// The classNames a topology file may use, and what plugins register (part of Tempest's public
// API, tempest/tempest.h).

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tempest/basic_bolt.h"
#include "tempest/bolt.h"
#include "tempest/config.h"
#include "tempest/fields.h"
#include "tempest/grouping.h"
#include "tempest/spout.h"
#include "tempest/version.h"

namespace tempest::topology {

// A file a component of the topology reads or writes (ComponentContext::ClaimFile).
struct FileClaim {
  std::string component;
  std::string path;  // as resolved (ResolvePath)
  bool writes = false;
};

// What a component maker knows besides its config map.
struct ComponentContext {
  std::string id;        // the component's id in the topology
  std::string base_dir;  // folder of the topology file: relative paths resolve against it
  // Each stream this component subscribes to, with its declared fields (bolts only).
  std::vector<std::pair<GlobalStreamId, Fields>> inputs;
  // The topology's settings as loaded (with --set overrides), for checks that depend on them
  // (a window must fit in the message timeout); null when a maker is called outside a loader.
  const TopologyConfig* topology = nullptr;
  int parallelism = 1;                       // the component's tasks
  std::vector<GroupingSpec> groupings = {};  // bolts: how each of `inputs` is grouped, in order

  // The files the topology's components claimed so far (set by the loader; null outside one).
  std::vector<FileClaim>* files = nullptr;

  // `path` if absolute, else base_dir/path.
  std::string ResolvePath(std::string_view path) const;
  // Notes that this component reads or writes the file at `path` (resolved). Throws
  // std::invalid_argument when another component writes a file this one reads, or reads one it
  // writes (a sink would truncate a spout's input); the same file under another name (a
  // symbolic or hard link, `..`) counts as the same.
  void ClaimFile(const std::string& path, bool writes) const;
};

// Turns a component's `config` map into a factory of task instances. Read every key through the
// reader (it rejects unknown keys afterwards) and check values eagerly: errors belong at load
// time, with the reader's file:line:column messages (ConfigReader::Fail).
using SpoutMaker =
    std::function<SpoutFactory(ConfigReader& config, const ComponentContext& context)>;
using BoltMaker = std::function<BoltFactory(ConfigReader& config, const ComponentContext& context)>;

// The classNames a topology file may use: built-ins and plugin classes. Not thread-safe: fill
// it before loading topologies.
class ComponentRegistry {
 public:
  // The registry the CLI and plugins use.
  static ComponentRegistry& Global();

  // Throws std::invalid_argument if the name is taken.
  void AddSpout(std::string class_name, SpoutMaker maker);
  void AddBolt(std::string class_name, BoltMaker maker);

  // For components without config keys: T must be default-constructible; a BasicBolt is
  // adapted (AdaptBasicBolt).
  template <typename T>
  void AddSpout(std::string class_name) {
    AddSpout(std::move(class_name), [](ConfigReader&, const ComponentContext&) -> SpoutFactory {
      return [] { return std::make_unique<T>(); };
    });
  }
  template <typename T>
  void AddBolt(std::string class_name) {
    AddBolt(std::move(class_name), [](ConfigReader&, const ComponentContext&) -> BoltFactory {
      if constexpr (std::is_base_of_v<BasicBolt, T>) {
        return [] { return AdaptBasicBolt(std::make_unique<T>()); };
      } else {
        return [] { return std::make_unique<T>(); };
      }
    });
  }

  const SpoutMaker* FindSpout(std::string_view class_name) const noexcept;
  const BoltMaker* FindBolt(std::string_view class_name) const noexcept;
  std::vector<std::string> SpoutNames() const;  // sorted
  std::vector<std::string> BoltNames() const;   // sorted

 private:
  std::map<std::string, SpoutMaker, std::less<>> spouts_;
  std::map<std::string, BoltMaker, std::less<>> bolts_;
};

}  // namespace tempest::topology

// Entry point of a Tempest plugin (.so): registers its spouts and bolts. Write, in one .cpp of
// the plugin:
//
//   TEMPEST_PLUGIN(registry) {
//     registry.AddBolt<SplitSentence>("SplitSentence");
//     registry.AddBolt("Threshold", [](ConfigReader& c, const ComponentContext&) { ... });
//   }
// It also records the Tempest version the plugin is built against: `tempest` refuses a plugin
// whose major.minor differs from its own, naming both.
#define TEMPEST_PLUGIN(registry)                                          \
  extern "C" TEMPEST_PLUGIN_EXPORT const char* tempest_plugin_version() { \
    return TEMPEST_VERSION;                                               \
  }                                                                       \
  extern "C" TEMPEST_PLUGIN_EXPORT void tempest_plugin_register_v1(       \
      ::tempest::topology::ComponentRegistry& registry);                  \
  extern "C" TEMPEST_PLUGIN_EXPORT void tempest_plugin_register_v1(       \
      ::tempest::topology::ComponentRegistry& registry)

// The plugin's two entry points stay visible when it is built with hidden symbols.
#define TEMPEST_PLUGIN_EXPORT __attribute__((visibility("default")))

namespace tempest {
using topology::BoltMaker;
using topology::ComponentContext;
using topology::ComponentRegistry;
using topology::SpoutMaker;
}  // namespace tempest

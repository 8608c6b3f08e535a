#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "topology/config_node.h"
#include "topology/fields.h"
#include "topology/stream_schema.h"
#include "topology/topology_spec.h"

namespace tempest::topology {

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

  // `path` if absolute, else base_dir/path.
  std::string ResolvePath(std::string_view path) const;
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

  // For components without config keys: T must be default-constructible.
  template <typename T>
  void AddSpout(std::string class_name) {
    AddSpout(std::move(class_name), [](ConfigReader&, const ComponentContext&) -> SpoutFactory {
      return [] { return std::make_unique<T>(); };
    });
  }
  template <typename T>
  void AddBolt(std::string class_name) {
    AddBolt(std::move(class_name), [](ConfigReader&, const ComponentContext&) -> BoltFactory {
      return [] { return std::make_unique<T>(); };
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

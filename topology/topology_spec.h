#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tempest/bolt.h"
#include "tempest/config.h"
#include "tempest/spout.h"
#include "topology/grouping.h"
#include "topology/stream_schema.h"
#include "topology/value.h"

namespace tempest::topology {

enum class ComponentKind { kSpout, kBolt };

// One spout or bolt: how to create its task instances, what it emits and what it consumes.
struct ComponentSpec {
  std::string id;
  ComponentKind kind = ComponentKind::kBolt;
  std::string class_name;  // the registered className, when loaded from a topology file
  int parallelism = 1;
  SpoutFactory spout_factory;  // kSpout only
  BoltFactory bolt_factory;    // kBolt only
  // Declared output streams, in declaration order. Tuples borrow these schemas.
  std::vector<std::shared_ptr<const StreamSchema>> streams;
  std::vector<InputSpec> inputs;  // kBolt only
  // kSpout only: where tuples given up after topology.spout.max.retries go (a dead-letter
  // stream with the spout's fields); empty: they are only counted.
  std::string failed_stream;

  const StreamSchema* FindStream(std::string_view stream) const noexcept;
  // Creates one throw-away instance with the factory and returns the streams it declares.
  // Whatever the factory or DeclareOutputFields throws propagates.
  std::vector<std::shared_ptr<const StreamSchema>> DeclareStreams() const;
  // Adds `failed_stream` (if set) to `streams`, with the fields the spout's streams share.
  // Throws std::invalid_argument when the spout already declares that stream, or its streams'
  // fields differ.
  void AddFailedStream(std::vector<std::shared_ptr<const StreamSchema>>& streams) const;
};

// A whole topology, as built by TopologyBuilder (or, later, the YAML loader). Validate before
// running; once validated it is shared immutably (std::shared_ptr<const TopologySpec>).
struct TopologySpec {
  std::string name = "topology";
  TopologyConfig config;
  std::vector<ComponentSpec> components;

  const ComponentSpec* Find(std::string_view id) const noexcept;
};

// Checks everything a run relies on; throws InvalidTopologyException with a precise message.
void Validate(const TopologySpec& spec);

}  // namespace tempest::topology

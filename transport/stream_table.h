#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "topology/stream_schema.h"
#include "topology/topology_spec.h"

namespace tempest::transport {

// Numbers every declared stream of a topology, so a frame names a tuple's stream with a small
// integer instead of two strings. Built from the spec in component order, then declaration order:
// the same numbers in every process of a run. Immutable; keeps the spec (and so the schemas) alive.
class StreamTable {
 public:
  explicit StreamTable(std::shared_ptr<const topology::TopologySpec> spec);

  // -1 for a schema that is not part of this topology.
  int IndexOf(const topology::StreamSchema* schema) const noexcept;
  // nullptr for an index out of range.
  const topology::StreamSchema* At(uint64_t index) const noexcept {
    return index < schemas_.size() ? schemas_[index] : nullptr;
  }
  std::size_t size() const noexcept { return schemas_.size(); }

 private:
  std::shared_ptr<const topology::TopologySpec> spec_;
  std::vector<const topology::StreamSchema*> schemas_;
  std::unordered_map<const topology::StreamSchema*, int> index_;
};

}  // namespace tempest::transport

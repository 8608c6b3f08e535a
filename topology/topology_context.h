#pragma once

// The public TopologyContext lives in tempest/topology_context.h; this adds the built-in
// components' access to the whole topology.
#include "tempest/topology_context.h"
#include "topology/task_layout.h"
#include "topology/topology_spec.h"

namespace tempest::topology {

class ContextAccess {
 public:
  static const TopologySpec& Topology(const TopologyContext& c) noexcept { return *c.spec_; }
  static const TaskLayout& Layout(const TopologyContext& c) noexcept { return *c.layout_; }
};

}  // namespace tempest::topology

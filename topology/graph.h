#pragma once

#include <string>

#include "topology/topology_spec.h"

namespace tempest::topology {

// The topology as Graphviz DOT: one node per component (id, className, parallelism), one edge
// per subscription labelled with the stream and grouping.
std::string ToDot(const TopologySpec& spec);

}  // namespace tempest::topology

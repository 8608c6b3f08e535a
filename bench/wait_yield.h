#pragma once
// The benchmarks' A/B switch for topology.wait.yield.micros: TEMPEST_WAIT_YIELD_MICROS, when
// set, overrides the topology's value. An environment variable, so a benchmark's worker
// processes (started by the supervisor, which passes its environment on) build the same
// topology. Header-only, for bench/ only.

#include <cstdlib>
#include <string>

#include "topology/topology_spec.h"

namespace tempest::bench {

inline void ApplyWaitYieldOverride(topology::TopologyConfig& config) {
  if (const char* v = std::getenv("TEMPEST_WAIT_YIELD_MICROS"))
    config.wait_yield_micros = std::stoi(v);
}

}  // namespace tempest::bench

#pragma once

#include <cstdint>
#include <memory>

#include "spouts/generator_spout.h"
#include "topology/topology_spec.h"

namespace tempest::testing {

// A factory of GeneratorSpouts that emit ids 0..count-1 (0: unbounded) and then end.
inline topology::SpoutFactory Generator(uint64_t count) {
  return [count] {
    return std::make_unique<spouts::GeneratorSpout>(spouts::GeneratorSpoutConfig{.count = count});
  };
}

}  // namespace tempest::testing

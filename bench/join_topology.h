#pragma once

// What the JoinBolt benchmarks (join.cpp, join_cross_process.cpp) build their topologies from:
// GeneratorSpouts "a" and "b" of n rows [id, key, ts, payload] each over `keys` keys, and the
// join of b to a on `key`, selecting "a:id, b:id", in tumbling count windows. Header-only, for
// bench/ only.
#include <cstdint>
#include <memory>

#include "bolts/join/join_bolt.h"
#include "spouts/generator_spout.h"
#include "topology/topology_builder.h"

namespace tempest::bench {

inline void AddJoinSpouts(topology::TopologyBuilder& b, uint64_t n, uint64_t keys) {
  spouts::GeneratorSpoutConfig gen;
  gen.count = n;
  gen.keys = keys;
  b.SetSpout("a", [gen] { return std::make_unique<spouts::GeneratorSpout>(gen); });
  b.SetSpout("b", [gen] { return std::make_unique<spouts::GeneratorSpout>(gen); });
}

inline bolts::JoinBoltBuilder JoinBToA(uint64_t window) {
  bolts::JoinBoltBuilder join(bolts::JoinSelector::kSource, "a", "key");
  join.Join("b", "key", "a")
      .Select("a:id, b:id")
      .WithTumblingWindow(bolts::WindowSpan::Count(static_cast<int64_t>(window)));
  return join;
}

}  // namespace tempest::bench

#pragma once

#include <string>
#include <vector>

#include "bolts/join/join_bolt.h"
#include "topology/config_node.h"

namespace tempest::bolts {

// YAML readers shared by the join bolts' makers; errors are ConfigError at the node.

// `key: field` or `key: [a, b]` of the map `r` reads.
std::vector<std::string> ReadJoinKey(topology::ConfigReader& r);
// `type: inner|left|right|full` (default inner).
JoinType ReadJoinType(topology::ConfigReader& r);
// `selector: stream|source` (default source).
JoinSelector ReadJoinSelector(topology::ConfigReader& r);
// The map at `key`, required; `expected` says what it should hold.
const topology::ConfigNode& RequiredMap(topology::ConfigReader& r, const char* key,
                                        const char* expected);

}  // namespace tempest::bolts

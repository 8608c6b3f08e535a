#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "tempest/joins.h"
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

// Runs `check`, turning its std::invalid_argument into a ConfigError at `node`: a check of the
// config struct reported at the YAML node a user would fix.
template <class F>
void CheckAt(const topology::ConfigNode& node, F&& check) {
  try {
    check();
  } catch (const std::invalid_argument& e) {
    throw topology::ConfigError(node, e.what());
  }
}

}  // namespace tempest::bolts

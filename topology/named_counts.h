#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tempest::topology {

// A short list of (name, value) pairs in first-seen order: a task's gauges, its drops by cause.
// A handful of names at most, so a linear search beats a map.
using NamedCounts = std::vector<std::pair<std::string, uint64_t>>;

// The value under `name`, added as 0 if missing.
inline uint64_t& NamedValue(NamedCounts& list, std::string_view name) {
  const auto it =
      std::find_if(list.begin(), list.end(), [name](const auto& p) { return p.first == name; });
  if (it != list.end()) return it->second;
  return list.emplace_back(std::string(name), 0).second;
}

}  // namespace tempest::topology

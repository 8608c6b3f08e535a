#pragma once

#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <vector>

#include "bolts/join/field_selector.h"
#include "topology/tuple.h"
#include "topology/value.h"
#include "topology/value_hash.h"

namespace tempest::bolts {

// The join key of one tuple, as pointers into it (no copies). Internal to the join bolts.
using KeyRef = boost::container::small_vector<const topology::Value*, 2>;

// Fills `out` with the tuple's key parts (`index[p]`: the field of part p's first step, -1 if the
// tuple lacks it); false when any part is missing or null (a null key matches nothing).
inline bool ExtractKey(const topology::Tuple& t, const std::vector<int>& index,
                       const std::vector<FieldSelector>& key, KeyRef& out) {
  out.clear();
  for (std::size_t p = 0; p < key.size(); ++p) {
    const topology::Value* v = LookupPath(t, index[p], key[p].path);
    if (v == nullptr || v->IsNull()) return false;
    out.push_back(v);
  }
  return true;
}

// The stable hash of the key parts, in order (so equal keys hash equal in every process).
inline uint64_t HashKey(const KeyRef& key) {
  uint64_t h = 0;
  for (const topology::Value* v : key) h = topology::StableHash(*v, h);
  return h;
}

inline bool SameKey(const KeyRef& a, const KeyRef& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!(*a[i] == *b[i])) return false;
  }
  return true;
}

}  // namespace tempest::bolts

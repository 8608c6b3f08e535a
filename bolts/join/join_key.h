#pragma once

#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <vector>

#include "bolts/join/field_selector.h"
#include "topology/row_batch.h"
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

// The same for a batch row: a part is read from its cell into `values[p]` (resized to the parts;
// strings reuse their buffers), which the key then points into.
inline bool ExtractKey(const topology::RowRef& row, const std::vector<int>& index,
                       const std::vector<FieldSelector>& key, topology::Values& values,
                       KeyRef& out) {
  out.clear();
  // boost's resize calls out to insert nothing when the size is already right (every row).
  if (values.size() != key.size()) values.resize(key.size());
  for (std::size_t p = 0; p < key.size(); ++p) {
    const topology::Value* v = LookupPath(row, index[p], key[p].path, values[p]);
    if (v == nullptr || v->IsNull()) return false;
    out.push_back(v);
  }
  return true;
}

// The hash of the key parts, in order, the same in every process. A single integer part (the
// usual key) is mixed inline (murmur3's finalizer) rather than through StableHash's XXH64 call;
// Value's == is type-strict, so such a key never equals one hashed the other way.
inline uint64_t HashIntKey(int64_t i) {
  uint64_t x = static_cast<uint64_t>(i);
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDULL;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ULL;
  x ^= x >> 33;
  return x;
}
inline uint64_t HashKey(const KeyRef& key) {
  if (key.size() == 1) {
    if (const int64_t* i = key[0]->IfInt()) return HashIntKey(*i);
  }
  uint64_t h = 0;
  for (const topology::Value* v : key) h = topology::StableHash(*v, h);
  return h;
}

// A key of one integer part read straight from a batch row's cell (the usual join key): hashed
// and compared without a Value built for it. HashKey gives it the hash of the same key as a
// KeyRef, so both find the same key in a state.
struct IntKey {
  int64_t value;
};
inline uint64_t HashKey(IntKey key) { return HashIntKey(key.value); }

// The row's key as an IntKey when the key is one top-level field (`index`: as ExtractKey's) and
// the row holds an integer there; false otherwise (ExtractKey then reads it).
inline bool ExtractIntKey(const topology::RowRef& row, const std::vector<int>& index,
                          const std::vector<FieldSelector>& key, IntKey& out) noexcept {
  if (key.size() != 1 || key[0].path.size() != 1 || index[0] < 0) return false;
  const auto field = static_cast<std::size_t>(index[0]);
  if (field >= row.size() || row.cell(field).tag != topology::CellTag::kInt) return false;
  out.value = row.cell(field).Int();
  return true;
}

inline bool SameKey(const KeyRef& a, const KeyRef& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!(*a[i] == *b[i])) return false;
  }
  return true;
}

}  // namespace tempest::bolts

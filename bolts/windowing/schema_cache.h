#pragma once

#include <deque>
#include <utility>

#include "topology/tuple.h"

namespace tempest::bolts {

// What a join bolt works out about an input schema the first time it sees it (its side, its
// plan, field indices), found again by the schema pointer: the tuples of one stream share it, so
// a lookup is a pointer compare over a handful of entries. References stay valid (a deque).
// Single-threaded.
template <typename Info>
class SchemaCache {
 public:
  // The info of `t`'s schema, made by `make(t)` the first time.
  template <typename Make>
  const Info& Get(const topology::Tuple& t, Make&& make) {
    return Get(t.schema(), [&] { return make(t); });
  }
  // The same by the schema alone (a batch row's), made by `make()` the first time: no Tuple is
  // built to look it up.
  template <typename Make>
  const Info& Get(const topology::StreamSchema* schema, Make&& make) {
    for (const auto& [s, info] : entries_) {
      if (s == schema) return info;
    }
    return entries_.emplace_back(schema, make()).second;
  }

 private:
  std::deque<std::pair<const topology::StreamSchema*, Info>> entries_;
};

}  // namespace tempest::bolts

#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "topology/value.h"

namespace tempest::topology {

// Tempest's stable value hash, used by fields and partial-key grouping. It depends only on the
// values (never on field names), is the same on every machine and in every process, and will
// not change between releases. The algorithm is specified in docs/hashing.md.
uint64_t StableHash(const Value& value, uint64_t seed = 0) noexcept;

// Hash of several values, in order: h = seed; for each v: h = StableHash(v, h).
uint64_t StableHash(const Values& values, std::span<const std::size_t> indices,
                    uint64_t seed = 0) noexcept;

}  // namespace tempest::topology

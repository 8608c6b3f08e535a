#pragma once

#include <cstdint>

namespace tempest::topology {

// splitmix64 (Steele, Lea and Flood): the n-th value of a sequence seeded with `seed` is
// SplitMix64Mix(seed + n * kSplitMix64Gamma). The mix is a bijection, so values of one sequence
// never repeat within 2^64 steps, and they pass as random. Ack ids (AckIds), a frame's derived
// edges (DerivedEdge) and TestWordSpout's words come from it.
inline constexpr uint64_t kSplitMix64Gamma = 0x9E3779B97F4A7C15ull;

constexpr uint64_t SplitMix64Mix(uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace tempest::topology

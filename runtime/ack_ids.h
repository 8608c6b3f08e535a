#pragma once

#include <cstdint>
#include <random>

namespace tempest::runtime {

// Draws the random 64-bit root and edge ids of ack tracking (Storm's MessageId.generateId):
// splitmix64 over a per-task random seed. Never returns 0 (the ledger's empty key). Cheap enough
// for the hot path (a few ns); not cryptographic: ids only need to collide rarely (a collision
// can at worst complete or fail a tree early, as in Storm). Single-threaded.
class AckIds {
 public:
  explicit AckIds(uint64_t salt) : state_(std::random_device{}() ^ (salt * 0x9E3779B97F4A7C15ull)) {
    state_ ^= static_cast<uint64_t>(std::random_device{}()) << 32;
  }

  uint64_t Next() noexcept {
    for (;;) {
      uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      if (z != 0) return z;
    }
  }

 private:
  uint64_t state_;
};

}  // namespace tempest::runtime

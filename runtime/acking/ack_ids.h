#pragma once

#include <cstdint>
#include <random>

#include "topology/splitmix.h"
#include "topology/task_layout.h"

namespace tempest::runtime {

// The layout of a root id drawn by a spout task: the low kRootSlotBits are the tree's slot in
// the spout's pending slab (runtime/acking/spout_pending.h), the next kRootLaneBits the spout's
// lane (its task id; 0 if that does not fit), the rest random, and those pick the tree's acker
// (TaskLayout::AckerOf). An acker keeps each lane's trees in an array indexed by slot
// (runtime/acking/ack_ledger.h); any other root works too, through a hash table.
inline constexpr int kRootSlotBits = 24;
inline constexpr int kRootLaneBits = 16;
static_assert(kRootSlotBits + kRootLaneBits == topology::TaskLayout::kAckerShift);

constexpr uint32_t RootSlot(uint64_t root) noexcept {
  return static_cast<uint32_t>(root & ((uint64_t{1} << kRootSlotBits) - 1));
}
constexpr uint32_t RootLane(uint64_t root) noexcept {
  return static_cast<uint32_t>((root >> kRootSlotBits) & ((uint64_t{1} << kRootLaneBits) - 1));
}
// The lane of a spout task's roots: its task id, or 0 (no lane) when that does not fit.
constexpr uint32_t LaneOfTask(int task) noexcept {
  return task > 0 && task < (1 << kRootLaneBits) ? static_cast<uint32_t>(task) : 0;
}

// Draws the random 64-bit root and edge ids of ack tracking (Storm's MessageId.generateId):
// splitmix64 over a per-task random seed. Never returns 0 (the ledger's empty key). Cheap enough
// for the hot path (a few ns); not cryptographic: ids only need to collide rarely (a collision
// can at worst complete or fail a tree early, as in Storm). Single-threaded.
class AckIds {
 public:
  explicit AckIds(uint64_t salt)
      : state_(std::random_device{}() ^ (salt * topology::kSplitMix64Gamma)) {
    state_ ^= static_cast<uint64_t>(std::random_device{}()) << 32;
  }

  uint64_t Next() noexcept {
    for (;;) {
      const uint64_t z = topology::SplitMix64Mix(state_ += topology::kSplitMix64Gamma);
      if (z != 0) return z;
    }
  }

 private:
  uint64_t state_;
};

}  // namespace tempest::runtime

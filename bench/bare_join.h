#pragma once

// The bare single-thread hash join the JoinBolt benchmarks (join.cpp, join_cross_process.cpp)
// measure Tempest against: one window at a time, the build side's rows hashed on their key into a
// flat open-addressing table (built once per window with reserved capacity, equal keys chained in
// arrival order), probed with the other side's rows, one output row [probe.id, build.id] built
// per match and handed to a sink that only counts. Header-only, for bench/ only.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "topology/value.h"
#include "topology/value_hash.h"

namespace tempest::bench {

// Joins windows of rows that have `values` = [id, key, …] (key at index 1). Reuses its table
// across windows; not thread-safe.
template <class Row>
class WindowHashJoin {
 public:
  // Joins one window; returns the output rows built.
  uint64_t Join(std::span<const Row> probe, std::span<const Row> build) {
    const std::size_t n = build.size();
    std::size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    slots_.assign(cap, -1);
    next_.assign(n, -1);
    tail_.assign(n, -1);
    hashes_.assign(n, 0);
    // Locals, not members, in the loops: the row copies are calls the compiler cannot see
    // through, and would otherwise reload the tables and store the checksum around each one.
    int32_t* const slots = slots_.data();
    int32_t* const next = next_.data();
    int32_t* const tail = tail_.data();
    uint64_t* const hashes = hashes_.data();
    for (std::size_t i = 0; i < n; ++i) {
      const topology::Value& k = build[i].values[1];
      hashes[i] = topology::StableHash(k, 0);
      for (std::size_t s = hashes[i] & (cap - 1);; s = (s + 1) & (cap - 1)) {
        const int32_t head = slots[s];
        if (head < 0) {
          slots[s] = static_cast<int32_t>(i);
          tail[i] = static_cast<int32_t>(i);
          break;
        }
        if (hashes[head] == hashes[i] && build[head].values[1] == k) {
          next[tail[head]] = static_cast<int32_t>(i);
          tail[head] = static_cast<int32_t>(i);
          break;
        }
      }
    }
    uint64_t produced = 0;
    int64_t checksum = 0;
    for (const Row& p : probe) {
      const topology::Value& k = p.values[1];
      const uint64_t h = topology::StableHash(k, 0);
      for (std::size_t s = h & (cap - 1);; s = (s + 1) & (cap - 1)) {
        const int32_t head = slots[s];
        if (head < 0) break;
        if (hashes[head] != h || !(build[head].values[1] == k)) continue;
        for (int32_t m = head; m >= 0; m = next[m]) {
          topology::Values out{p.values[0], build[m].values[0]};
          checksum += out[0].AsInt() ^ out[1].AsInt();
          ++produced;
        }
        break;
      }
    }
    checksum_ += checksum;
    return produced;
  }

  // Of every output row so far: keeps the rows observable, so they are really built.
  int64_t checksum() const noexcept { return checksum_; }

 private:
  std::vector<int32_t> slots_, next_, tail_;
  std::vector<uint64_t> hashes_;
  int64_t checksum_ = 0;
};

}  // namespace tempest::bench

#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "bolts/join/join_key.h"

namespace tempest::bolts {

// The join states' key index: per key a Slot (the state's per-key data, with `hash`, `bool
// in_table` and `bool empty() const`) and the key's values as the Codec stores them apart (a
// probe compares them only when the hashes are equal), found through an open-addressing table of
// indices (linear probing, load at most a half). A Slot's `hash` may be a `uint32_t` holding the
// hash's low bits: a table never has 2^32 places.
//
// A key whose slot empties stays in the table for a while — keys come back, and forgetting one
// at once costs a copy of its values and a rehash each time — until the empty ones outnumber
// both the others and kSweepAt; a sweep (Rebuild) then drops them and recycles their slots
// (which keep their capacity). Codec: `using Stored`, `static bool Equals(const Stored&, const
// KeyRef&)`, `static void Assign(Stored&, const KeyRef&)`, `static void Release(Stored&)`.
// Single-threaded.
template <class Slot, class Codec>
class FlatKeyTable {
 public:
  static constexpr uint32_t kNoKey = std::numeric_limits<uint32_t>::max();
  static constexpr std::size_t kSweepAt = 1024;
  using SlotHash = decltype(Slot::hash);

  Slot& operator[](uint32_t k) noexcept { return slots_[k]; }
  const Slot& operator[](uint32_t k) const noexcept { return slots_[k]; }
  const std::vector<Slot>& slots() const noexcept { return slots_; }
  // Keys that hold something.
  std::size_t live() const noexcept { return in_table_ - empty_; }

  uint32_t Find(const KeyRef& key, uint64_t hash) const noexcept {
    const std::size_t mask = table_.size() - 1;
    for (std::size_t s = hash & mask;; s = (s + 1) & mask) {
      const uint32_t k = table_[s];
      if (k == kNoKey) return kNoKey;
      if (slots_[k].hash == static_cast<SlotHash>(hash) && Codec::Equals(stored_[k], key)) return k;
    }
  }

  // The key's index, inserted (with an empty slot) if new. A key found empty is counted as
  // holding something again: call Emptied if it stays empty.
  uint32_t FindOrInsert(const KeyRef& key, uint64_t hash) {
    uint32_t k = Find(key, hash);
    if (k != kNoKey) {
      if (slots_[k].empty()) --empty_;
      return k;
    }
    if (2 * (in_table_ + 1) > table_.size()) Rebuild(table_.size() * 2);
    if (!free_.empty()) {
      k = free_.back();
      free_.pop_back();
    } else {
      k = static_cast<uint32_t>(slots_.size());
      slots_.emplace_back();
      stored_.emplace_back();
    }
    Codec::Assign(stored_[k], key);
    slots_[k].hash = static_cast<SlotHash>(hash);
    slots_[k].in_table = true;
    Place(k);
    ++in_table_;
    return k;
  }

  // A key's slot became empty: keep it, and sweep once the empty keys are too many.
  void Emptied() {
    if (++empty_ > kSweepAt && 2 * empty_ > in_table_) Rebuild(table_.size());
  }

  // Rebuilds the table at `capacity` (a power of two) with the keys that hold something; the
  // empty ones are freed.
  void Rebuild(std::size_t capacity) {
    table_.assign(capacity, kNoKey);
    in_table_ = 0;
    for (uint32_t i = 0; i < slots_.size(); ++i) {
      Slot& slot = slots_[i];
      if (!slot.in_table) continue;
      if (slot.empty()) {
        slot.in_table = false;
        Codec::Release(stored_[i]);
        free_.push_back(i);
        continue;
      }
      Place(i);
      ++in_table_;
    }
    empty_ = 0;
    // Keep the load at most a half, and shrink a table that a burst of keys grew.
    while (capacity > 16 && 8 * in_table_ < capacity) capacity /= 2;
    if (capacity != table_.size()) {
      table_.assign(capacity, kNoKey);
      for (uint32_t i = 0; i < slots_.size(); ++i) {
        if (slots_[i].in_table) Place(i);
      }
    }
  }

 private:
  void Place(uint32_t k) {
    const std::size_t mask = table_.size() - 1;
    std::size_t s = slots_[k].hash & mask;
    while (table_[s] != kNoKey) s = (s + 1) & mask;
    table_[s] = k;
  }

  std::vector<Slot> slots_;
  std::vector<typename Codec::Stored> stored_;  // by key index
  std::vector<uint32_t> free_;
  std::vector<uint32_t> table_ = std::vector<uint32_t>(16, kNoKey);
  std::size_t in_table_ = 0;  // keys in the table, empty or not
  std::size_t empty_ = 0;     // of those, the ones with nothing held
};

}  // namespace tempest::bolts

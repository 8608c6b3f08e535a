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
// A state either forgets a key whose slot empties at once (Forget: the slot is recycled and keeps
// its capacity; a key that comes back costs a copy of its values and a rehash), or lets it stay
// for a while (Emptied) until the empty ones outnumber both the others and kSweepAt; a sweep
// (Rebuild) then drops them all. Codec: `using Stored`, `static bool Equals(const Stored&, const
// Key&)` and `static void Assign(Stored&, const Key&)` for each key type it is given (KeyRef, and
// IntKey where the codec takes it), `static void Release(Stored&)`.
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

  template <class Key>
  uint32_t Find(const Key& key, uint64_t hash) const noexcept {
    std::size_t place;
    return Find(key, hash, place);
  }

  // The key's index, inserted (with an empty slot) if new. A key found empty is counted as
  // holding something again: call Emptied if it stays empty.
  template <class Key>
  uint32_t FindOrInsert(const Key& key, uint64_t hash) {
    std::size_t place;
    const uint32_t k = Find(key, hash, place);
    if (k == kNoKey) return Insert(key, hash, place);
    if (slots_[k].empty()) --empty_;
    return k;
  }

  // A key's slot became empty: keep it, and sweep once the empty keys are too many.
  void Emptied() {
    if (++empty_ > kSweepAt && 2 * empty_ > in_table_) Rebuild(table_.size());
  }

  // Drops an empty key at once: the keys after it in its probe chain that may move back do (a
  // backward shift, no tombstones), and its slot is recycled.
  void Forget(uint32_t k) noexcept {
    const std::size_t mask = table_.size() - 1;
    std::size_t hole = slots_[k].hash & mask;
    while (table_[hole] != k) hole = (hole + 1) & mask;
    for (std::size_t j = (hole + 1) & mask; table_[j] != kNoKey; j = (j + 1) & mask) {
      const std::size_t home = slots_[table_[j]].hash & mask;
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        table_[hole] = table_[j];
        hole = j;
      }
    }
    table_[hole] = kNoKey;
    slots_[k].in_table = false;
    Codec::Release(stored_[k]);
    free_.push_back(k);
    --in_table_;
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
  // As Find; a key not found would go at `place`.
  template <class Key>
  uint32_t Find(const Key& key, uint64_t hash, std::size_t& place) const noexcept {
    const std::size_t mask = table_.size() - 1;
    for (std::size_t s = hash & mask;; s = (s + 1) & mask) {
      const uint32_t k = table_[s];
      if (k == kNoKey) {
        place = s;
        return kNoKey;
      }
      if (slots_[k].hash == static_cast<SlotHash>(hash) && Codec::Equals(stored_[k], key)) return k;
    }
  }

  template <class Key>
  uint32_t Insert(const Key& key, uint64_t hash, std::size_t place) {
    const bool grow = 2 * (in_table_ + 1) > table_.size();
    if (grow) Rebuild(table_.size() * 2);
    uint32_t k;
    if (!free_.empty()) {
      k = free_.back();
      free_.pop_back();
    } else {
      k = static_cast<uint32_t>(slots_.size());
      // By a quarter, not doubled: at a row or two per key the slots are most of the state.
      if (slots_.size() == slots_.capacity()) {
        const std::size_t cap = slots_.size() + slots_.size() / 4 + 16;
        slots_.reserve(cap);
        stored_.reserve(cap);
      }
      slots_.emplace_back();
      stored_.emplace_back();
    }
    Codec::Assign(stored_[k], key);
    slots_[k].hash = static_cast<SlotHash>(hash);
    slots_[k].in_table = true;
    if (grow) {
      Place(k);
    } else {
      table_[place] = k;
    }
    ++in_table_;
    return k;
  }

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

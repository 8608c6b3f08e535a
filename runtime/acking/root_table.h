#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tempest::runtime {

// A flat open-addressing hash table keyed by a tuple tree's root id (docs/architecture.md,
// "Measured facts": ~2× std::unordered_map here, and no allocation per entry): linear probing over
// a power-of-two array at most half full, backward-shift deletion (no tombstones). `Entry` is a
// value type with a `uint64_t root` member; root 0 marks an empty slot, so 0 is never a key.
// Pointers to entries are valid until the next insertion or erasure. Single-threaded.
template <class Entry>
class RootTable {
 public:
  explicit RootTable(std::size_t capacity = 16) {
    Resize(std::bit_ceil(std::max<std::size_t>(16, 2 * capacity)));
  }

  Entry* Find(uint64_t root) noexcept {
    if (size_ == 0) return nullptr;
    for (std::size_t i = Slot(root);; i = (i + 1) & mask_) {
      Entry& e = slots_[i];
      if (e.root == root) return &e;
      if (e.root == 0) return nullptr;
    }
  }
  // The entry of `root`; a value-initialised one with that root if there was none.
  Entry& FindOrInsert(uint64_t root) {
    if (2 * (size_ + 1) > slots_.size()) Resize(2 * slots_.size());
    std::size_t i = Slot(root);
    for (; slots_[i].root != 0; i = (i + 1) & mask_) {
      if (slots_[i].root == root) return slots_[i];
    }
    slots_[i] = Entry{};
    slots_[i].root = root;
    ++size_;
    return slots_[i];
  }
  // Adds an entry whose root is not present.
  Entry& Insert(Entry&& entry) {
    if (2 * (size_ + 1) > slots_.size()) Resize(2 * slots_.size());
    std::size_t i = Slot(entry.root);
    while (slots_[i].root != 0) i = (i + 1) & mask_;
    slots_[i] = std::move(entry);
    ++size_;
    return slots_[i];
  }
  void Erase(Entry* e) noexcept {
    std::size_t hole = static_cast<std::size_t>(e - slots_.data());
    // Pull later entries of the probe run into the hole, so lookups never need tombstones.
    for (std::size_t j = (hole + 1) & mask_; slots_[j].root != 0; j = (j + 1) & mask_) {
      const std::size_t home = Slot(slots_[j].root);
      // Moving j to the hole keeps it reachable iff its home is not in (hole, j] (cyclically).
      const bool reachable_from_home =
          hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (reachable_from_home) continue;
      slots_[hole] = std::move(slots_[j]);
      hole = j;
    }
    slots_[hole] = Entry{};
    --size_;
  }
  void Clear() noexcept {
    if (size_ == 0) return;
    for (Entry& e : slots_) e = Entry{};
    size_ = 0;
  }
  std::size_t size() const noexcept { return size_; }

 private:
  std::size_t Slot(uint64_t root) const noexcept {
    // Fibonacci hashing: roots are random already; the multiply spreads any that are not.
    return static_cast<std::size_t>((root * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void Resize(std::size_t slots) {
    std::vector<Entry> old(slots);
    old.swap(slots_);
    mask_ = slots - 1;
    shift_ = 64 - std::countr_zero(slots);
    size_ = 0;
    for (Entry& e : old) {
      if (e.root != 0) Insert(std::move(e));
    }
  }

  std::vector<Entry> slots_;
  std::size_t mask_ = 0;
  int shift_ = 0;
  std::size_t size_ = 0;
};

}  // namespace tempest::runtime

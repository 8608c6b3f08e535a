#include "runtime/ack_ledger.h"

#include <bit>
#include <utility>

namespace tempest::runtime {

AckLedger::Table::Table(std::size_t capacity) {
  Resize(std::bit_ceil(std::max<std::size_t>(16, 2 * capacity)));
}

void AckLedger::Table::Resize(std::size_t slots) {
  std::vector<Entry> old(slots);
  old.swap(slots_);
  mask_ = slots - 1;
  shift_ = 64 - std::countr_zero(slots);
  size_ = 0;
  for (const Entry& e : old) {
    if (e.root != 0) Insert(e);
  }
}

AckLedger::Entry* AckLedger::Table::Find(uint64_t root) noexcept {
  if (size_ == 0) return nullptr;
  for (std::size_t i = Slot(root);; i = (i + 1) & mask_) {
    Entry& e = slots_[i];
    if (e.root == root) return &e;
    if (e.root == 0) return nullptr;
  }
}

AckLedger::Entry& AckLedger::Table::FindOrInsert(uint64_t root) {
  if (2 * (size_ + 1) > slots_.size()) Resize(2 * slots_.size());  // load factor at most 1/2
  std::size_t i = Slot(root);
  for (; slots_[i].root != 0; i = (i + 1) & mask_) {
    if (slots_[i].root == root) return slots_[i];
  }
  slots_[i] = Entry{root, 0, 0, false};
  ++size_;
  return slots_[i];
}

AckLedger::Entry& AckLedger::Table::Insert(const Entry& entry) {
  if (2 * (size_ + 1) > slots_.size()) Resize(2 * slots_.size());
  std::size_t i = Slot(entry.root);
  while (slots_[i].root != 0) i = (i + 1) & mask_;
  slots_[i] = entry;
  ++size_;
  return slots_[i];
}

void AckLedger::Table::Erase(Entry* e) noexcept {
  const std::size_t mask = mask_;
  std::size_t hole = static_cast<std::size_t>(e - slots_.data());
  // Backward-shift deletion: pull later entries of the probe run into the hole, so lookups
  // never need tombstones.
  for (std::size_t j = (hole + 1) & mask; slots_[j].root != 0; j = (j + 1) & mask) {
    const std::size_t home = Slot(slots_[j].root);
    // Moving j to the hole keeps it reachable iff its home is not in (hole, j] (cyclically).
    const bool reachable_from_home =
        hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (reachable_from_home) continue;
    slots_[hole] = slots_[j];
    hole = j;
  }
  slots_[hole] = Entry{};
  --size_;
}

void AckLedger::Table::Clear() noexcept {
  if (size_ == 0) return;
  for (Entry& e : slots_) e = Entry{};
  size_ = 0;
}

AckLedger::AckLedger(std::size_t expected_pending)
    : current_(expected_pending), previous_(expected_pending) {}

AckLedger::Entry& AckLedger::Touch(uint64_t root) {
  // Usually the root is in the newer table or new; the older one is empty between rotations'
  // first touches.
  if (Entry* old = previous_.Find(root)) {
    const Entry moved = *old;
    previous_.Erase(old);
    return current_.Insert(moved);
  }
  return current_.FindOrInsert(root);
}

AckLedger::Result AckLedger::Decide(Entry& e) {
  if (e.spout_task == 0) return {};
  Result r;
  if (e.failed) {
    r.outcome = Outcome::kFailed;
  } else if (e.value == 0) {
    r.outcome = Outcome::kCompleted;
  } else {
    return r;
  }
  r.spout_task = e.spout_task;
  current_.Erase(&e);
  return r;
}

AckLedger::Result AckLedger::Init(uint64_t root, uint64_t xor_edges, int spout_task) {
  Entry& e = Touch(root);
  e.value ^= xor_edges;
  e.spout_task = spout_task;
  return Decide(e);
}

AckLedger::Result AckLedger::Ack(uint64_t root, uint64_t xor_value) {
  Entry& e = Touch(root);
  e.value ^= xor_value;
  return Decide(e);
}

AckLedger::Result AckLedger::Fail(uint64_t root) {
  Entry& e = Touch(root);
  e.failed = true;
  return Decide(e);
}

int AckLedger::Reset(uint64_t root) {
  if (current_.Find(root) == nullptr && previous_.Find(root) == nullptr) return 0;
  return Touch(root).spout_task;
}

std::size_t AckLedger::Rotate() {
  const std::size_t forgotten = previous_.size();
  previous_.Clear();
  std::swap(current_, previous_);
  return forgotten;
}

}  // namespace tempest::runtime

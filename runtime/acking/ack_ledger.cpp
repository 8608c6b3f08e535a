#include "runtime/acking/ack_ledger.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "runtime/acking/ack_ids.h"

namespace tempest::runtime {

AckLedger::AckLedger(std::size_t expected_pending)
    : current_(expected_pending), previous_(expected_pending) {}

void AckLedger::AddLane(uint32_t lane) {
  if (lane == 0) return;
  if (lane >= lanes_.size()) lanes_.resize(lane + 1);
  // A lane is registered when its array is not empty: one slot now, more on first use.
  if (lanes_[lane].empty()) lanes_[lane].resize(1);
}

AckLedger::Entry* AckLedger::LaneSlot(uint64_t root) noexcept {
  const uint32_t lane = RootLane(root), slot = RootSlot(root);
  if (lane >= lanes_.size()) return nullptr;
  std::vector<Entry>& slots = lanes_[lane];
  return slot < slots.size() ? &slots[slot] : nullptr;  // an unregistered lane has no slots
}

AckLedger::Entry* AckLedger::LaneEntry(uint64_t root) {
  Entry* e = LaneSlot(root);
  if (e == nullptr) {
    const uint32_t lane = RootLane(root), slot = RootSlot(root);
    if (lane >= lanes_.size() || lanes_[lane].empty() || slot >= kMaxLaneSlots) return nullptr;
    lanes_[lane].resize(std::max<std::size_t>(1024, std::bit_ceil(std::size_t{slot} + 1)));
    e = &lanes_[lane][slot];
  }
  if (e->root == root) {
    e->epoch = epoch_;
    return e;
  }
  // Taken by another tree, or this root went to the tables while it was.
  if (e->root != 0 || previous_.Find(root) != nullptr || current_.Find(root) != nullptr) {
    return nullptr;
  }
  *e = Entry{};
  e->root = root;
  e->epoch = epoch_;
  ++by_slot_;
  return e;
}

AckLedger::Entry& AckLedger::Touch(uint64_t root) {
  if (Entry* e = LaneEntry(root)) return *e;
  // Usually the root is in the newer table or new; the older one is empty between rotations'
  // first touches.
  if (Entry* old = previous_.Find(root)) {
    Entry moved = *old;
    previous_.Erase(old);
    return current_.Insert(std::move(moved));
  }
  return current_.FindOrInsert(root);
}

AckLedger::Entry* AckLedger::Find(uint64_t root) {
  if (Entry* e = LaneSlot(root); e != nullptr && e->root == root) return e;
  if (Entry* e = current_.Find(root)) return e;
  return previous_.Find(root);
}

void AckLedger::Erase(Entry& e) {
  if (LaneSlot(e.root) == &e) {
    e = Entry{};
    --by_slot_;
  } else {
    current_.Erase(&e);  // Touch leaves every table entry it returns in the current table
  }
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
  Erase(e);
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
  if (Find(root) == nullptr) return 0;
  return Touch(root).spout_task;
}

std::size_t AckLedger::Rotate() {
  std::size_t forgotten = previous_.size();
  previous_.Clear();
  std::swap(current_, previous_);
  ++epoch_;
  // A lane entry is as old as the table it would be in: touched in this epoch or the one
  // before, it stays (wrapping is harmless: no entry outlives two rotations).
  if (by_slot_ > 0) {
    for (std::vector<Entry>& slots : lanes_) {
      for (Entry& e : slots) {
        if (e.root != 0 && static_cast<uint16_t>(epoch_ - e.epoch) >= 2) {
          e = Entry{};
          --by_slot_;
          ++forgotten;
        }
      }
    }
  }
  return forgotten;
}

}  // namespace tempest::runtime

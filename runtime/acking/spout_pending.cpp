#include "runtime/acking/spout_pending.h"

namespace tempest::runtime {

uint64_t SpoutPending::Reserve(uint64_t high_bits) {
  uint64_t slot = 0;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else if (!full()) {
    slot = slots_.size();
    slots_.emplace_back();
  } else {
    return 0;
  }
  const uint64_t root = (high_bits << kSlotBits) | slot;
  slots_[slot].root = root;
  slots_[slot].epoch = epoch_;
  slots_[slot].ack_value = 0;
  slots_[slot].failed = false;
  ++size_;
  return root;
}

SpoutPending::Decision SpoutPending::Commit(uint64_t root, topology::Value&& message_id,
                                            TimePoint emitted, uint64_t edges) {
  Slot* s = Find(root);
  if (s == nullptr) return Decision::kUnknown;
  s->entry.message_id = std::move(message_id);
  s->entry.emitted = emitted;
  s->epoch = epoch_;  // rotations while its tuples were being sent do not count
  s->committed = true;
  if (edges == 0) return Decision::kPending;  // an acker tracks the tree: nothing is acked here
  s->ack_value ^= edges;
  return DecisionOf(*s);
}

SpoutPending::Decision SpoutPending::Ack(uint64_t root, uint64_t value) noexcept {
  Slot* s = Find(root);
  if (s == nullptr) return Decision::kUnknown;
  s->ack_value ^= value;
  return DecisionOf(*s);
}

SpoutPending::Decision SpoutPending::Fail(uint64_t root) noexcept {
  Slot* s = Find(root);
  if (s == nullptr) return Decision::kUnknown;
  s->failed = true;
  return DecisionOf(*s);
}

void SpoutPending::Release(uint64_t root) noexcept {
  if (Slot* s = Find(root)) {
    s->root = 0;
    s->committed = false;
    s->failed = false;
    // The entry is left as it is: moved out already, or never filled (an emit that went
    // nowhere), and overwritten at the slot's next Commit.
    free_.push_back(static_cast<uint32_t>(s - slots_.data()));
    --size_;
  }
}

uint64_t SpoutPending::Add(uint64_t high_bits, topology::Value message_id, TimePoint emitted) {
  const uint64_t root = Reserve(high_bits);
  if (root != 0) Commit(root, std::move(message_id), emitted);
  return root;
}

std::optional<SpoutPending::Entry> SpoutPending::Take(uint64_t root) {
  Entry e;
  if (!TakeInto(root, e)) return std::nullopt;
  return e;
}

bool SpoutPending::TakeInto(uint64_t root, Entry& out) {
  Slot* s = Find(root);
  if (s == nullptr) return false;
  out.message_id = std::move(s->entry.message_id);
  out.emitted = s->entry.emitted;
  Release(root);
  return true;
}

bool SpoutPending::Touch(uint64_t root) {
  Slot* s = Find(root);
  if (s == nullptr) return false;
  s->epoch = epoch_;
  return true;
}

void SpoutPending::Rotate(std::vector<Entry>& expired) {
  ++epoch_;
  if (size_ == 0) return;
  for (Slot& s : slots_) {
    if (s.root == 0 || !s.committed || s.epoch + 2 > epoch_) continue;
    expired.push_back(std::move(s.entry));
    Release(s.root);
  }
}

}  // namespace tempest::runtime

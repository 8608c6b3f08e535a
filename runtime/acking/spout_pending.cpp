#include "runtime/acking/spout_pending.h"

namespace tempest::runtime {

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

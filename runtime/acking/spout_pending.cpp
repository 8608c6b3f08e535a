#include "runtime/acking/spout_pending.h"

namespace tempest::runtime {

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
    expired.emplace_back().MoveFrom(s.entry);
    Release(s.root);
  }
}

}  // namespace tempest::runtime

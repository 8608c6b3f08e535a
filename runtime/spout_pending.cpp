#include "runtime/spout_pending.h"

namespace tempest::runtime {

void SpoutPending::Add(uint64_t root, topology::Value message_id, TimePoint emitted) {
  if (Slot* old = previous_.Find(root)) previous_.Erase(old);
  current_.FindOrInsert(root).entry = Entry{std::move(message_id), emitted};
}

std::optional<SpoutPending::Entry> SpoutPending::Take(uint64_t root) {
  for (RootTable<Slot>* generation : {&current_, &previous_}) {
    Slot* slot = generation->Find(root);
    if (slot == nullptr) continue;
    Entry e = std::move(slot->entry);
    generation->Erase(slot);
    return e;
  }
  return std::nullopt;
}

bool SpoutPending::Touch(uint64_t root) {
  if (current_.Find(root) != nullptr) return true;
  Slot* slot = previous_.Find(root);
  if (slot == nullptr) return false;
  Slot moved = std::move(*slot);
  previous_.Erase(slot);
  current_.Insert(std::move(moved));
  return true;
}

void SpoutPending::Rotate(std::vector<Entry>& expired) {
  previous_.Drain([&](Slot&& s) { expired.push_back(std::move(s.entry)); });
  std::swap(previous_, current_);
}

}  // namespace tempest::runtime

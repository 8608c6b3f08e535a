#include "runtime/spout_pending.h"

namespace tempest::runtime {

void SpoutPending::Add(uint64_t root, topology::Value message_id, TimePoint emitted) {
  current_.insert_or_assign(root, Entry{std::move(message_id), emitted});
}

std::optional<SpoutPending::Entry> SpoutPending::Take(uint64_t root) {
  for (auto* generation : {&current_, &previous_}) {
    auto it = generation->find(root);
    if (it == generation->end()) continue;
    Entry e = std::move(it->second);
    generation->erase(it);
    return e;
  }
  return std::nullopt;
}

bool SpoutPending::Touch(uint64_t root) {
  if (current_.count(root) > 0) return true;
  auto it = previous_.find(root);
  if (it == previous_.end()) return false;
  current_.emplace(root, std::move(it->second));
  previous_.erase(it);
  return true;
}

void SpoutPending::Rotate(std::vector<Entry>& expired) {
  for (auto& [root, e] : previous_) expired.push_back(std::move(e));
  previous_.clear();
  previous_.swap(current_);
}

}  // namespace tempest::runtime

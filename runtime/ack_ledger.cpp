#include "runtime/ack_ledger.h"

#include <bit>
#include <utility>

namespace tempest::runtime {

AckLedger::AckLedger(std::size_t expected_pending)
    : current_(expected_pending), previous_(expected_pending) {}

AckLedger::Entry& AckLedger::Touch(uint64_t root) {
  // Usually the root is in the newer table or new; the older one is empty between rotations'
  // first touches.
  if (Entry* old = previous_.Find(root)) {
    Entry moved = *old;
    previous_.Erase(old);
    return current_.Insert(std::move(moved));
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

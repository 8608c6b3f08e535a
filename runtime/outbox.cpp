#include "runtime/outbox.h"

#include <algorithm>

namespace tempest::runtime {

Outbox::Outbox(int from_task, std::vector<TaskQueue*> queues, std::size_t batch_size)
    : from_task_(from_task),
      queues_(std::move(queues)),
      batch_size_(std::max<std::size_t>(1, batch_size)),
      pending_(queues_.size()) {}

void Outbox::Hand(int task) {
  Envelope e{Envelope::Kind::kTuples, from_task_, std::move(pending_[task])};
  pending_[task] = {};
  if (!queues_[task]->Push(std::move(e))) open_ = false;
  std::erase(dirty_, task);
}

void Outbox::Flush() {
  // Hand() edits dirty_, so walk a snapshot.
  std::vector<int> dirty;
  dirty.swap(dirty_);
  for (int task : dirty) {
    if (pending_[task].empty()) continue;
    Envelope e{Envelope::Kind::kTuples, from_task_, std::move(pending_[task])};
    pending_[task] = {};
    if (!queues_[task]->Push(std::move(e))) open_ = false;
  }
}

void Outbox::SendEndOfStream(const std::vector<int>& tasks) {
  Flush();
  for (int task : tasks) {
    if (!queues_[task]->Push(Envelope{Envelope::Kind::kEndOfStream, from_task_, {}})) {
      open_ = false;
    }
  }
}

}  // namespace tempest::runtime

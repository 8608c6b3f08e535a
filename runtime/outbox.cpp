#include "runtime/outbox.h"

#include <algorithm>

namespace tempest::runtime {

Outbox::Outbox(int from_task, std::vector<TaskQueue*> queues, std::size_t batch_size)
    : from_task_(from_task),
      queues_(std::move(queues)),
      batch_size_(std::max<std::size_t>(1, batch_size)),
      pending_(queues_.size()) {}

void Outbox::Hand(int task) {
  std::erase(dirty_, task);
  Push(task);
}

void Outbox::Push(int task) {
  Envelope e{Envelope::Kind::kTuples, from_task_, std::move(pending_[task])};
  pending_[task] = {};
  // The queue hands back a recycled buffer for the next batch to this task, if it has one.
  if (!queues_[task]->Push(std::move(e), &pending_[task])) open_ = false;
}

void Outbox::Flush() {
  for (int task : dirty_) {
    if (!pending_[task].empty()) Push(task);
  }
  dirty_.clear();
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

#pragma once

#include <cstddef>
#include <vector>

#include "runtime/task_queue.h"
#include "topology/tuple.h"

namespace tempest::runtime {

// The outgoing batches of one task, one per destination task. A batch is handed to its
// destination's queue when it reaches batch_size or on Flush(); handing over may block
// (backpressure). Used only by the owning task's thread.
class Outbox {
 public:
  // queues[t] is task t's inbound queue (index 0 unused).
  Outbox(int from_task, std::vector<TaskQueue*> queues, std::size_t batch_size);

  void Send(int task, const topology::StreamSchema* schema, topology::Values&& values) {
    std::vector<topology::Tuple>& batch = pending_[task];
    if (batch.empty()) {
      dirty_.push_back(task);
      batch.reserve(batch_size_);
    }
    batch.emplace_back(schema, from_task_, std::move(values));
    if (batch.size() >= batch_size_) Hand(task);
  }
  // Hands every non-empty batch over, in the order they were started.
  void Flush();
  // Flushes, then sends end-of-stream to each task in `tasks`.
  void SendEndOfStream(const std::vector<int>& tasks);
  // False once a destination queue refused (the run is being force-stopped).
  bool open() const noexcept { return open_; }

 private:
  void Hand(int task);
  void Push(int task);

  int from_task_;
  std::vector<TaskQueue*> queues_;
  std::size_t batch_size_;
  std::vector<std::vector<topology::Tuple>> pending_;
  std::vector<int> dirty_;
  bool open_ = true;
};

}  // namespace tempest::runtime

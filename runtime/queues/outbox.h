#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/queues/task_queue.h"
#include "topology/tuple.h"
#include "transport/frame.h"
#include "transport/stream_table.h"

namespace tempest::runtime {

class RemoteLink;
class ChainedInput;
struct ChainTable;

// The outgoing batches of one task, one per destination task. A local destination gets a batch
// of Tuples pushed to its queue; a remote one (another worker) gets the values encoded straight
// into a frame (no Tuple is built) sent through the RemoteLink. A batch is handed over when it
// reaches batch_size or on Flush(); handing over may block (backpressure: a full queue, or no
// credit from the remote task). A full local batch does not wake its consumer at once (see
// TaskQueue::WakeConsumer::kLater): Flush does, so a task must Flush before it waits for anything.
// Used only by the owning task's thread.
class Outbox {
 public:
  struct Options {
    std::size_t batch_size = 256;         // tuples per local batch
    std::size_t frame_bytes = 64 * 1024;  // bytes per remote frame (also capped by the credit)
    RemoteLink* link = nullptr;           // multi-process runs: how to reach remote tasks
    const transport::StreamTable* streams = nullptr;
    // Ack messages never wait for room or credit (the acker's outbox: its messages go to spout
    // tasks, which may be blocked sending to the acker; waiting could close a cycle).
    bool acks_without_waiting = false;
    // Tasks chained to this one (runtime/queues/chaining.h): they get its batches and markers by
    // call.
    const ChainTable* chains = nullptr;
  };
  // queues[t] is task t's inbound queue when t runs in this process, else nullptr: then
  // options.link and options.streams must be given.
  Outbox(int from_task, std::vector<TaskQueue*> queues, Options options);

  using AnchorList = std::span<const topology::AckMeta::Anchor>;

  void Send(int task, const topology::StreamSchema* schema, topology::Values&& values,
            AnchorList anchors = {}) {
    if (queues_[task] == nullptr) {
      SendRemote(task, schema, values, anchors);
      return;
    }
    topology::Tuple& t = OpenBatch(task).emplace_back(schema, from_task_, std::move(values));
    if (!anchors.empty())
      topology::TupleAccess::MutableAck(t).anchors.assign(anchors.begin(), anchors.end());
    HandIfFull(task);
  }
  // A tuple built in place (Emitter::EmitRows), one at a time: Begin gives the empty values of
  // the next tuple for `task`; Commit then sends it as Send would, or Abandon drops it.
  topology::Values& Begin(int task, const topology::StreamSchema* schema) {
    if (queues_[task] == nullptr) {
      staged_.clear();
      return staged_;
    }
    return topology::TupleAccess::MutableValues(OpenBatch(task).emplace_back(schema, from_task_));
  }
  void Commit(int task, const topology::StreamSchema* schema) {
    if (queues_[task] == nullptr) {
      SendRemote(task, schema, staged_, {});
      return;
    }
    HandIfFull(task);
  }
  void Abandon(int task) noexcept {
    if (queues_[task] != nullptr) pending_[task].pop_back();
  }
  // Queues one ack-protocol message for `task` (an acker, or a spout for the acker's replies).
  void SendAck(int task, const transport::AckMessage& message) {
    std::vector<transport::AckMessage>& batch = acks_[task];
    if (batch.empty()) ack_dirty_.push_back(task);
    batch.push_back(message);
    if (batch.size() >= (queues_[task] == nullptr ? remote_ack_batch_ : local_ack_batch_)) {
      HandAcks(task);
    }
  }
  // Hands every non-empty batch over, in the order they were started (ack messages last).
  void Flush();
  // Flushes, then sends end-of-stream to each task in `tasks`.
  void SendEndOfStream(const std::vector<int>& tasks);
  // Flushes, then sends close to each task in `tasks`.
  void SendClose(const std::vector<int>& tasks);
  // False once a destination refused (the run is being force-stopped).
  bool open() const noexcept { return open_; }
  // Runs `f` every kWhileBlockedEvery while a hand-over waits for room or credit (a spout
  // expires its timeouts meanwhile). It must not use this outbox.
  void SetWhileBlocked(WhileBlocked f) { while_blocked_ = std::move(f); }
  // From now on, tasks chained to this one get its batches and markers by call (every task has
  // been prepared); until then their batches are held, however large.
  void StartChaining();

 private:
  // A local task's pending batch, registered for the next Flush when it was empty.
  std::vector<topology::Tuple>& OpenBatch(int task) {
    std::vector<topology::Tuple>& batch = pending_[task];
    if (batch.empty()) {
      dirty_.push_back(task);
      batch.reserve(batch_size_);
    }
    return batch;
  }
  void HandIfFull(int task) {
    if (pending_[task].size() >= batch_size_) Hand(task);
  }
  // The task chained to this one that `task` is, or nullptr.
  ChainedInput* ChainedTo(int task) const noexcept {
    return chained_.empty() ? nullptr : chained_[task];
  }
  void Deliver(ChainedInput& chained, int task);
  void Hand(int task);
  void Push(int task, TaskQueue::WakeConsumer wake);
  void SendRemote(int task, const topology::StreamSchema* schema, const topology::Values& values,
                  AnchorList anchors);
  void HandAcks(int task);
  void SendMarker(const std::vector<int>& tasks, Envelope::Kind kind);
  int StreamIndex(const topology::StreamSchema* schema);

  int from_task_;
  std::vector<TaskQueue*> queues_;
  std::size_t batch_size_;
  std::size_t frame_bytes_;
  uint32_t frame_tuples_;  // at most half a remote task's credit (remote_link.h says why)
  // Ack messages per batch. They are small, and a batch handed over costs the receiver a wake-up
  // (and a remote one two I/O threads' too) whatever it holds, so batches are larger than tuple
  // batches: locally at least 4096, remotely as many as fill a tuple frame. A Flush hands them
  // over anyway, so this only matters under load.
  std::size_t local_ack_batch_;
  std::size_t remote_ack_batch_;
  RemoteLink* link_;
  const transport::StreamTable* streams_;
  std::vector<std::vector<topology::Tuple>> pending_;
  topology::Values staged_;  // Begin's values for a remote task
  std::vector<std::unique_ptr<transport::FrameBuilder>> frames_;  // remote destinations
  std::vector<int> dirty_;
  // Local tasks handed a full batch without waking them (TaskQueue::WakeConsumer::kLater) since the
  // last Flush, which wakes them; deferred_[t] says whether t is in the list.
  std::vector<int> deferred_list_;
  std::vector<uint8_t> deferred_;
  std::vector<std::vector<transport::AckMessage>> acks_;  // by destination task
  std::vector<int> ack_dirty_;
  std::string ack_frame_;  // reused encoding buffer
  bool acks_without_waiting_;
  WhileBlocked while_blocked_;
  const ChainTable* chains_;
  std::vector<ChainedInput*> chained_;     // by task: chained to this one (empty until started)
  std::vector<ChainedInput*> chain_list_;  // the same, as a list for Flush
  const topology::StreamSchema* last_schema_ = nullptr;
  int last_stream_ = -1;
  bool open_ = true;
};

}  // namespace tempest::runtime

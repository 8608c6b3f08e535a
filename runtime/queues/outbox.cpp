#include "runtime/queues/outbox.h"

#include <algorithm>

#include "runtime/process/remote_link.h"
#include "runtime/queues/chaining.h"

namespace tempest::runtime {

Outbox::Outbox(int from_task, std::vector<TaskQueue*> queues, Options options)
    : from_task_(from_task),
      queues_(std::move(queues)),
      batch_size_(std::max<std::size_t>(1, options.batch_size)),
      frame_bytes_(options.frame_bytes),
      frame_tuples_(options.link != nullptr ? options.link->max_frame_tuples() : 0),
      local_ack_batch_(std::max<std::size_t>(batch_size_, 4096)),
      // 19 bytes: an ack message's largest encoding (type, root, value).
      remote_ack_batch_(
          std::max<std::size_t>(1, std::min<std::size_t>(frame_tuples_, options.frame_bytes / 19))),
      link_(options.link),
      streams_(options.streams),
      pending_(queues_.size()),
      frames_(queues_.size()),
      deferred_(queues_.size(), 0),
      acks_(queues_.size()),
      acks_without_waiting_(options.acks_without_waiting),
      chains_(options.chains) {}

void Outbox::StartChaining() {
  if (chains_ == nullptr) return;
  // Only a task that runs others writes here. A chained task's own outbox is used on its
  // upstream's thread from the start, so its thread must not touch it now (a data race).
  std::vector<ChainedInput*> chained(queues_.size(), nullptr);
  for (std::size_t t = 0; t < chains_->upstream.size(); ++t) {
    if (chains_->upstream[t] == from_task_ && chains_->input[t] != nullptr) {
      chained[t] = chains_->input[t];
      chain_list_.push_back(chains_->input[t]);
    }
  }
  if (!chain_list_.empty()) chained_ = std::move(chained);
}

void Outbox::Deliver(ChainedInput& chained, int task) {
  Envelope e;
  e.from_task = from_task_;
  e.tuples = std::move(pending_[task]);
  chained.Deliver(e);
  e.tuples.clear();  // the buffer serves the next batch
  pending_[task] = std::move(e.tuples);
}

int Outbox::StreamIndex(const topology::StreamSchema* schema) {
  if (schema != last_schema_) {
    last_schema_ = schema;
    last_stream_ = streams_->IndexOf(schema);
  }
  return last_stream_;
}

void Outbox::SendRemote(int task, const topology::StreamSchema* schema,
                        const topology::Values& values, AnchorList anchors) {
  std::unique_ptr<transport::FrameBuilder>& frame = frames_[task];
  if (!frame) frame = std::make_unique<transport::FrameBuilder>();
  if (frame->count() == 0) {
    frame->Begin(from_task_, task);
    dirty_.push_back(task);
  }
  frame->Add(StreamIndex(schema), values, anchors);
  if (frame->bytes() >= frame_bytes_ || frame->count() >= frame_tuples_) Hand(task);
}

void Outbox::Hand(int task) {
  // A chained task's batches wait for StartChaining (an emit from Prepare).
  if (chains_ != nullptr && chained_.empty() && chains_->upstream[task] == from_task_) return;
  std::erase(dirty_, task);
  Push(task, TaskQueue::WakeConsumer::kLater);
}

void Outbox::Push(int task, TaskQueue::WakeConsumer wake) {
  if (queues_[task] == nullptr) {
    transport::FrameBuilder& frame = *frames_[task];
    const uint32_t count = frame.count();
    if (!link_->SendTuples(task, frame.Finish(), count, &while_blocked_)) open_ = false;
    frame.Begin(from_task_, task);  // keeps the buffer; count() is 0 again
    return;
  }
  if (ChainedInput* chained = ChainedTo(task)) {
    Deliver(*chained, task);
    return;
  }
  Envelope e{Envelope::Kind::kTuples, from_task_, std::move(pending_[task]), {}, 0, {}};
  pending_[task] = {};
  if (wake == TaskQueue::WakeConsumer::kLater && deferred_[task] == 0) {
    deferred_[task] = 1;
    deferred_list_.push_back(task);
  }
  // The queue hands back a recycled buffer for the next batch to this task, if it has one.
  if (!queues_[task]->Push(std::move(e), &pending_[task], wake, &while_blocked_)) open_ = false;
}

void Outbox::HandAcks(int task) {
  std::erase(ack_dirty_, task);
  std::vector<transport::AckMessage>& batch = acks_[task];
  bool sent = true;
  if (queues_[task] == nullptr) {
    ack_frame_.clear();
    transport::EncodeAckFrame(from_task_, task, batch, ack_frame_);
    sent = link_->SendAcks(task, ack_frame_, static_cast<uint32_t>(batch.size()),
                           !acks_without_waiting_, &while_blocked_);
    batch.clear();
  } else {
    Envelope e;
    e.kind = Envelope::Kind::kAcks;
    e.from_task = from_task_;
    // The next batch starts with room for as many as this one had: no regrowing under load.
    const std::size_t had = batch.size();
    e.acks = std::move(batch);
    batch = {};
    batch.reserve(std::max<std::size_t>(64, had));
    sent = acks_without_waiting_
               ? queues_[task]->PushWithoutWaiting(std::move(e))
               : queues_[task]->Push(std::move(e), nullptr, TaskQueue::WakeConsumer::kNow,
                                     &while_blocked_);
  }
  // The acker's replies to a spout that has finished are stale: losing them is harmless.
  if (!sent && !acks_without_waiting_) open_ = false;
}

void Outbox::Flush() {
  for (int task : dirty_) {
    const bool has_data =
        queues_[task] == nullptr ? frames_[task]->count() > 0 : !pending_[task].empty();
    if (has_data) Push(task, TaskQueue::WakeConsumer::kNow);
  }
  dirty_.clear();
  // What the chained tasks emitted while running this task's batches goes out now too.
  for (ChainedInput* chained : chain_list_) chained->FlushOutput();
  for (int task : deferred_list_) {
    queues_[task]->Wake();
    deferred_[task] = 0;
  }
  deferred_list_.clear();
  // Acks after the tuples: an ack that overtook its tuples would be harmless (the ledger takes
  // updates in any order), but this keeps trees from completing before their tuples are out.
  while (!ack_dirty_.empty()) HandAcks(ack_dirty_.front());
}

void Outbox::SendEndOfStream(const std::vector<int>& tasks) {
  SendMarker(tasks, Envelope::Kind::kEndOfStream);
}

void Outbox::SendClose(const std::vector<int>& tasks) { SendMarker(tasks, Envelope::Kind::kClose); }

void Outbox::SendMarker(const std::vector<int>& tasks, Envelope::Kind kind) {
  Flush();
  for (int task : tasks) {
    bool sent = false;
    if (ChainedInput* chained = ChainedTo(task)) {
      Envelope e;
      e.kind = kind;
      e.from_task = from_task_;
      chained->Deliver(e);
      sent = true;
    } else if (queues_[task] == nullptr) {
      sent = kind == Envelope::Kind::kClose ? link_->SendClose(from_task_, task)
                                            : link_->SendEndOfStream(from_task_, task);
    } else {
      Envelope e;
      e.kind = kind;
      e.from_task = from_task_;
      sent = queues_[task]->Push(std::move(e));
    }
    if (!sent) open_ = false;
  }
}

}  // namespace tempest::runtime

#include "runtime/queues/outbox.h"

#include <algorithm>

#include "runtime/process/remote_link.h"
#include "runtime/queues/chaining.h"

namespace tempest::runtime {
namespace {

// Acks and replies together, ascending (as TaskSlots takes them).
std::vector<int> AckDestinations(const Outbox::Destinations& d) {
  std::vector<int> all = d.acks;
  all.insert(all.end(), d.replies.begin(), d.replies.end());
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace

Outbox::Outbox(int from_task, std::span<TaskQueue* const> queues, const Destinations& destinations,
               Options options)
    : from_task_(from_task),
      queues_(queues),
      slot_of_(destinations.tuples),
      slots_(destinations.tuples.size()),
      ack_slot_of_(AckDestinations(destinations)),
      acks_(ack_slot_of_.size()),
      batch_size_(std::max<std::size_t>(1, options.batch_size)),
      first_reserve_(std::clamp<std::size_t>(
          kOpenBatchBytes /
              (topology::RowBatch::kReservedRowBytes * std::max<std::size_t>(1, slots_.size())),
          1, batch_size_)),
      frame_bytes_(options.frame_bytes),
      frame_tuples_(options.link != nullptr ? options.link->max_frame_tuples() : 0),
      local_ack_batch_(std::max<std::size_t>(batch_size_, 4096)),
      // 19 bytes: an ack message's largest encoding (type, root, value).
      remote_ack_batch_(
          std::max<std::size_t>(1, std::min<std::size_t>(frame_tuples_, options.frame_bytes / 19))),
      link_(options.link),
      streams_(options.streams),
      chains_(options.chains) {
  for (std::size_t i = 0; i < slots_.size(); ++i) slots_[i].task = destinations.tuples[i];
  for (int t : destinations.acks) acks_[ack_slot_of_.Of(t)].task = t;
  for (int t : destinations.replies) {
    AckSlot& s = acks_[ack_slot_of_.Of(t)];
    s.task = t;
    s.wait = false;
  }
}

void Outbox::KeepSentFrames() {
  for (Slot& slot : slots_) {
    if (queues_[slot.task] != nullptr || slot.sent) continue;
    slot.sent = std::make_unique<SentFrames>(static_cast<uint64_t>(from_task_));
    // A frame begun before is not kept whole: not kept at all.
    if (slot.frame && slot.frame->count() > 0) slot.sent->Add({});
  }
}

void Outbox::ExpireSentFrames(std::chrono::steady_clock::time_point before) {
  for (Slot& slot : slots_) {
    if (slot.sent) slot.sent->Expire(before);
  }
}

void Outbox::StartChaining() {
  if (chains_ == nullptr) return;
  // Only a task that runs others writes here. A chained task's own outbox is used on its
  // upstream's thread from the start, so its thread must not touch it now (a data race).
  for (Slot& slot : slots_) {
    const auto t = static_cast<std::size_t>(slot.task);
    if (chains_->upstream[t] == from_task_ && chains_->input[t] != nullptr) {
      slot.chained = chains_->input[t];
      chain_list_.push_back(slot.chained);
    }
  }
  if (!chain_list_.empty()) chaining_started_ = true;
}

void Outbox::Deliver(Slot& slot) {
  Envelope e;
  e.from_task = from_task_;
  e.rows = std::move(slot.pending);
  slot.chained->Deliver(e);
  e.rows.Clear();  // the buffer serves the next batch
  slot.pending = std::move(e.rows);
}

int Outbox::StreamIndex(const topology::StreamSchema* schema) {
  if (schema != last_schema_) {
    last_schema_ = schema;
    last_stream_ = streams_->IndexOf(schema);
  }
  return last_stream_;
}

void Outbox::SendRemote(int slot, const topology::StreamSchema* schema,
                        const topology::Values& values, AnchorList anchors) {
  transport::FrameBuilder& frame = OpenFrame(slot);
  frame.Add(StreamIndex(schema), values, anchors);
  if (SentFrames* sent = slots_[slot].sent.get()) sent->Add(anchors);
  HandIfFrameFull(slot, frame);
}

void Outbox::SendRemoteRow(int slot, const topology::StreamSchema* schema,
                           const topology::RowRef& row, AnchorList anchors) {
  transport::FrameBuilder& frame = OpenFrame(slot);
  frame.AddRow(StreamIndex(schema), row, anchors);
  if (SentFrames* sent = slots_[slot].sent.get()) sent->Add(anchors);
  HandIfFrameFull(slot, frame);
}

transport::FrameBuilder& Outbox::OpenFrame(int slot) {
  std::unique_ptr<transport::FrameBuilder>& frame = slots_[slot].frame;
  if (!frame) frame = std::make_unique<transport::FrameBuilder>();
  if (frame->count() == 0) {
    const SentFrames* sent = slots_[slot].sent.get();
    frame->Begin(from_task_, slots_[slot].task, sent != nullptr ? sent->edge_key() : 0);
    dirty_.push_back(slot);
  }
  return *frame;
}

void Outbox::HandIfFrameFull(int slot, const transport::FrameBuilder& frame) {
  if (frame.bytes() >= frame_bytes_ || frame.count() >= frame_tuples_) Hand(slot);
}

void Outbox::Hand(int slot) {
  // A chained task's batches wait for StartChaining (an emit from Prepare).
  if (chains_ != nullptr && !chaining_started_ &&
      chains_->upstream[static_cast<std::size_t>(slots_[slot].task)] == from_task_) {
    return;
  }
  std::erase(dirty_, slot);
  Push(slot, TaskQueue::WakeConsumer::kLater);
}

void Outbox::Push(int slot, TaskQueue::WakeConsumer wake) {
  Slot& s = slots_[slot];
  if (slot == carrier_slot_) carrier_slot_ = -1;  // its row leaves
  if (queues_[s.task] == nullptr) {
    transport::FrameBuilder& frame = *s.frame;
    const uint32_t count = frame.count();
    if (!link_->SendTuples(s.task, frame.Finish(), count, &while_blocked_)) open_ = false;
    frame.Begin(from_task_, s.task);  // keeps the buffer; count() is 0 again
    if (s.sent) s.sent->Sent(std::chrono::steady_clock::now());
    return;
  }
  if (s.chained != nullptr) {
    Deliver(s);
    return;
  }
  Envelope e{Envelope::Kind::kTuples, from_task_, std::move(s.pending), {}, 0, {}};
  if (wake == TaskQueue::WakeConsumer::kLater && !s.deferred) {
    s.deferred = true;
    deferred_list_.push_back(slot);
  }
  // The queue hands back a recycled buffer for the next batch to this task, if it has one.
  Envelope spare;
  if (!queues_[s.task]->Push(std::move(e), &spare, wake, &while_blocked_)) open_ = false;
  s.pending = std::move(spare.rows);
}

void Outbox::HandAcks(int ack_slot) {
  std::erase(ack_dirty_, ack_slot);
  std::vector<transport::AckMessage>& batch = acks_[ack_slot].batch;
  const int task = acks_[ack_slot].task;
  const bool wait = acks_[ack_slot].wait;
  bool sent = true;
  if (queues_[task] == nullptr) {
    transport::EncodeAckFrame(from_task_, task, batch, ack_frame_);
    sent = link_->SendAcks(task, ack_frame_.view(), static_cast<uint32_t>(batch.size()), wait,
                           &while_blocked_);
    batch.clear();
  } else {
    Envelope e;
    e.kind = Envelope::Kind::kAcks;
    e.from_task = from_task_;
    const std::size_t had = batch.size();
    e.acks = std::move(batch);
    Envelope spare;  // a buffer the queue recycled, if it has one
    sent = wait ? queues_[task]->Push(std::move(e), &spare, TaskQueue::WakeConsumer::kNow,
                                      &while_blocked_)
                : queues_[task]->PushWithoutWaiting(std::move(e), &spare);
    batch = std::move(spare.acks);
    // Room for as many as this batch had: no regrowing under load.
    batch.reserve(std::max<std::size_t>(64, had));
  }
  // Replies to a spout that has finished are stale (its trees are all decided): losing them is
  // harmless.
  if (!sent && wait) open_ = false;
}

void Outbox::StartBatch(int slot) {
  dirty_.push_back(slot);
  slots_[slot].pending.reserve(first_reserve_);
}

void Outbox::Flush() {
  for (int slot : dirty_) {
    const Slot& s = slots_[slot];
    const bool has_data = queues_[s.task] == nullptr ? s.frame->count() > 0 : !s.pending.empty();
    if (has_data) Push(slot, TaskQueue::WakeConsumer::kNow);
  }
  dirty_.clear();
  // What the chained tasks emitted while running this task's batches goes out now too.
  for (ChainedInput* chained : chain_list_) chained->FlushOutput();
  for (int slot : deferred_list_) {
    Slot& s = slots_[slot];
    queues_[s.task]->Wake();
    s.deferred = false;
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
    const int slot = slot_of_.Of(task);
    ChainedInput* chained = slot >= 0 ? slots_[slot].chained : nullptr;
    bool sent = false;
    if (chained != nullptr) {
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

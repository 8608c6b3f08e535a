#pragma once

#include <cassert>
#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/acking/sent_frames.h"
#include "runtime/queues/task_queue.h"
#include "runtime/queues/task_slots.h"
#include "topology/row_batch.h"
#include "transport/frame.h"
#include "transport/stream_table.h"

namespace tempest::runtime {

class RemoteLink;
class ChainedInput;
struct ChainTable;

// The outgoing batches of one task, one per destination task. A local destination gets a batch
// of rows (topology/row_batch.h) pushed to its queue; a remote one (another worker) gets the values
// encoded straight into a frame (no Tuple is built) sent through the RemoteLink. A batch is handed
// over when it reaches batch_size or on Flush(); handing over may block (backpressure: a full
// queue, or no credit from the remote task). A full local batch does not wake its consumer at once
// (see TaskQueue::WakeConsumer::kLater): Flush does, so a task must Flush before it waits for
// anything. Used only by the owning task's thread.
class Outbox {
 public:
  struct Options {
    std::size_t batch_size = 256;         // tuples per local batch
    std::size_t frame_bytes = 64 * 1024;  // bytes per remote frame (also capped by the credit)
    RemoteLink* link = nullptr;           // multi-process runs: how to reach remote tasks
    const transport::StreamTable* streams = nullptr;
    // Tasks chained to this one (runtime/queues/chaining.h): they get its batches and markers by
    // call.
    const ChainTable* chains = nullptr;
  };
  // The tasks an outbox sends to, each ascending: only they get state here, so a task's outbox
  // grows with its fan-out, not with the topology.
  struct Destinations {
    std::vector<int> tuples;  // where tuples (and end-of-stream and close) go
    std::vector<int> acks;    // where ack messages (and close) go: the ackers
    // Where ack messages go without ever waiting for room or credit: the spout tasks, which may
    // be blocked sending to this task (waiting could close a cycle). Disjoint from `acks`.
    std::vector<int> replies;
  };
  // queues[t] is task t's inbound queue when t runs in this process, else nullptr: then
  // options.link and options.streams must be given. The queues outlive the outbox.
  Outbox(int from_task, std::span<TaskQueue* const> queues, const Destinations& destinations,
         Options options);

  using AnchorList = std::span<const topology::AckMeta::Anchor>;

  // `task` is one of the tuple destinations.
  [[gnu::always_inline]] void Send(int task, const topology::StreamSchema* schema,
                                   topology::Values&& values, AnchorList anchors = {}) {
    const int slot = SlotOf(task);
    if (queues_[task] == nullptr) {
      SendRemote(slot, schema, values, anchors);
      return;
    }
    topology::RowBatch& batch = OpenBatch(slot);
    batch.Append(schema, values, anchors);
    KeepCarrier(slot, batch, anchors);
    HandIfFull(slot);
  }
  // As Send, with the values of a row of another batch.
  void SendRow(int task, const topology::StreamSchema* schema, const topology::RowRef& row,
               AnchorList anchors = {}) {
    const int slot = SlotOf(task);
    if (queues_[task] == nullptr) {
      SendRemoteRow(slot, schema, row, anchors);
      return;
    }
    topology::RowBatch& batch = OpenBatch(slot);
    batch.AppendRow(schema, row, anchors);
    KeepCarrier(slot, batch, anchors);
    HandIfFull(slot);
  }
  // A tuple built in place (Emitter::EmitRows), one at a time: Begin gives the emptied values of
  // the next tuple; Commit then sends them to `task` as Send would (nothing is sent without it).
  topology::Values& Begin() {
    staged_.clear();
    return staged_;
  }
  void Commit(int task, const topology::StreamSchema* schema) {
    const int slot = SlotOf(task);
    if (queues_[task] == nullptr) {
      SendRemote(slot, schema, staged_, {});
      return;
    }
    OpenBatch(slot).Append(schema, staged_);
    HandIfFull(slot);
  }
  // A row built in place in `task`'s open batch (Emitter::EmitRows): the batch to append its
  // cells to, or null when `task` is remote (then Begin and Commit). EndRow then closes the row,
  // with its cell count, and sends as Commit would.
  topology::RowBatch* OpenRow(int task) {
    return queues_[task] == nullptr ? nullptr : &OpenBatch(SlotOf(task));
  }
  void EndRow(int task, const topology::StreamSchema* schema, std::size_t cells) {
    const int slot = SlotOf(task);
    slots_[slot].pending.EndRow(schema, cells, 0);
    HandIfFull(slot);
  }
  // Rows built in place in a local `task`'s open batch, a run at a time (Emitter::EmitRows): the
  // batch, and how many rows it takes before it is full. The caller ends each row on the batch
  // itself (RowBatch::EndRow), then calls EndRun, which sends as EndRow would.
  struct RowRun {
    topology::RowBatch* batch;
    int slot;
    std::size_t room;
  };
  bool IsLocal(int task) const noexcept { return queues_[task] != nullptr; }
  RowRun OpenRun(int task) {
    const int slot = SlotOf(task);
    topology::RowBatch& batch = OpenBatch(slot);
    return {&batch, slot, batch.size() < batch_size_ ? batch_size_ - batch.size() : 1};
  }
  void EndRun(const RowRun& run) { HandIfFull(run.slot); }
  // Queues one ack-protocol message for `task` (an acker, or a spout tracking its own trees or
  // getting an acker's replies), one of the ack or reply destinations. An ack of the same tree as
  // the message queued just before it is XORed into that one: the acker's sum is the same (XOR is
  // associative), and the tuples of one tree (a sentence's words) tend to be acked one after
  // another. Takes the message's fields rather than a message: a message just built by the caller
  // and copied whole would make the copy wait for the caller's stores (a failed store forward).
  [[gnu::always_inline]] void SendAck(int task, transport::AckMessage::Type type, uint64_t root,
                                      uint64_t value) {
    // Consecutive acks mostly go to one task (an acker, or the spout task of a batch's trees):
    // its slot is remembered rather than looked up per message.
    if (task != last_ack_task_) {
      last_ack_slot_ = ack_slot_of_.Of(task);
      last_ack_task_ = task;
    }
    const int slot = last_ack_slot_;
    assert(slot >= 0);
    std::vector<transport::AckMessage>& batch = acks_[slot].batch;
    if (batch.empty()) {
      ack_dirty_.push_back(slot);
    } else if (type == transport::AckMessage::Type::kAck &&
               batch.back().type == transport::AckMessage::Type::kAck &&
               batch.back().root == root) {
      batch.back().value ^= value;
      return;
    }
    transport::AckMessage& m = batch.emplace_back();
    m.type = type;
    m.root = root;
    m.value = value;
    if (batch.size() >= (queues_[task] == nullptr ? remote_ack_batch_ : local_ack_batch_)) {
      HandAcks(slot);
    }
  }
  // Lets an ack of tree `root` ride on the last tracked row sent to a local task instead of
  // travelling as a message, when that row is still in its open batch and belongs to that tree
  // alone: the row's edge takes the ack's value. The tree's XOR comes out the same once the row
  // is acked, which cannot happen before the row leaves, after this ack; if the row is lost or
  // fails, so does its tree, as it would without the ack. Returns false when there is no such
  // row (then send the ack).
  bool FoldAck(uint64_t root, uint64_t value) noexcept {
    if (carrier_slot_ < 0) return false;
    topology::AckMeta::Anchor& a = slots_[carrier_slot_].pending.anchor(carrier_anchor_);
    // An edge of 0 would read as no edge: send that rare ack instead.
    if (a.root != root || (a.edge ^ value) == 0) return false;
    a.edge ^= value;
    return true;
  }
  // From now on, keeps the anchors of the frames sent to tasks of other workers, for their frame
  // acks (a spout task that tracks its own trees, runtime/acking/sent_frames.h).
  void KeepSentFrames();
  // What was kept of the frames sent to `task`; null when not kept (a local task, or none).
  SentFrames* SentFramesTo(int task) {
    const int slot = slot_of_.Of(task);
    return slot < 0 ? nullptr : slots_[slot].sent.get();
  }
  // After KeepSentFrames, the edge id the next tuple to remote `task` gets from the open frame's
  // edge key (transport::DerivedEdge), which lets the frame carry its root alone; else 0.
  uint64_t DerivedEdgeFor(int task) {
    const Slot& s = slots_[SlotOf(task)];
    if (!s.sent) return 0;
    return transport::DerivedEdge(s.sent->edge_key(), s.frame ? s.frame->count() : 0);
  }
  // Forgets the kept frames sent before `before`.
  void ExpireSentFrames(std::chrono::steady_clock::time_point before);
  // Hands every non-empty batch over, in the order they were started (ack messages last).
  void Flush();
  // Flushes, then sends end-of-stream to each task in `tasks` (tuple destinations).
  void SendEndOfStream(const std::vector<int>& tasks);
  // Flushes, then sends close to each task in `tasks` (tuple or ack destinations).
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
  // What this task holds for one tuple destination.
  struct Slot {
    topology::RowBatch pending;                      // local: the open batch
    std::unique_ptr<transport::FrameBuilder> frame;  // remote: the open frame
    ChainedInput* chained = nullptr;                 // chained to this task (set by StartChaining)
    std::unique_ptr<SentFrames> sent;                // remote, after KeepSentFrames
    int task = 0;
    // Handed a full batch without waking it (TaskQueue::WakeConsumer::kLater) since the last
    // Flush, which wakes it.
    bool deferred = false;
  };

  // Consecutive tuples mostly go to one task (a bolt's only subscriber, a run of rows to one
  // task): its slot is remembered rather than looked up per tuple.
  int SlotOf(int task) noexcept {
    if (task != last_task_) {
      last_slot_ = slot_of_.Of(task);
      last_task_ = task;
    }
    assert(last_slot_ >= 0);
    return last_slot_;
  }
  // A local task's pending batch, registered for the next Flush when it was empty. The opening
  // is out of line: the per-tuple path then keeps no registers to save.
  topology::RowBatch& OpenBatch(int slot) {
    topology::RowBatch& batch = slots_[slot].pending;
    if (batch.empty()) [[unlikely]]
      StartBatch(slot);
    return batch;
  }
  void StartBatch(int slot);
  // The row just appended to `batch` (slot `slot`'s) is FoldAck's carrier when it has one anchor.
  void KeepCarrier(int slot, const topology::RowBatch& batch, AnchorList anchors) noexcept {
    if (anchors.size() == 1) {
      carrier_slot_ = slot;
      carrier_anchor_ = batch.anchor_count() - 1;
    }
  }
  void HandIfFull(int slot) {
    if (slots_[slot].pending.size() >= batch_size_) Hand(slot);
  }
  void Deliver(Slot& slot);
  void Hand(int slot);
  void Push(int slot, TaskQueue::WakeConsumer wake);
  void SendRemote(int slot, const topology::StreamSchema* schema, const topology::Values& values,
                  AnchorList anchors);
  void SendRemoteRow(int slot, const topology::StreamSchema* schema, const topology::RowRef& row,
                     AnchorList anchors);
  transport::FrameBuilder& OpenFrame(int slot);  // begun, and marked dirty, if it was empty
  void HandIfFrameFull(int slot, const transport::FrameBuilder& frame);
  void HandAcks(int ack_slot);
  void SendMarker(const std::vector<int>& tasks, Envelope::Kind kind);
  int StreamIndex(const topology::StreamSchema* schema);

  int from_task_;
  std::span<TaskQueue* const> queues_;  // by task id, shared by every task of the process
  TaskSlots slot_of_;                   // tuple destinations
  std::vector<Slot> slots_;
  // What this task holds for one ack destination.
  struct AckSlot {
    std::vector<transport::AckMessage> batch;
    int task = 0;
    bool wait = true;  // false: a reply destination
  };
  TaskSlots ack_slot_of_;  // ack destinations
  std::vector<AckSlot> acks_;
  int last_task_ = -1;  // SlotOf's last task, and its slot
  int last_slot_ = -1;
  // FoldAck's row: its slot (-1: none, or its batch has been handed over) and its anchor's index
  // in that slot's open batch.
  int carrier_slot_ = -1;
  std::size_t carrier_anchor_ = 0;
  int last_ack_task_ = -1;  // SendAck's last destination, and its slot
  int last_ack_slot_ = -1;
  std::size_t batch_size_;
  // What a new batch reserves: a whole batch, unless this task sends to so many tasks that open
  // batches to all of them would pass kOpenBatchBytes; then less, and it grows as it fills
  // (recycled buffers keep their size). A wide, sparse fan-out then does not hold a page per
  // destination.
  std::size_t first_reserve_;
  static constexpr std::size_t kOpenBatchBytes = 4 << 20;
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
  topology::Values staged_;             // Begin's values; a row's for a remote task
  std::vector<int> dirty_;              // slots with a batch or frame started since the last Flush
  std::vector<int> deferred_list_;      // slots marked deferred
  std::vector<int> ack_dirty_;          // ack slots with messages since the last Flush
  transport::MsgpackWriter ack_frame_;  // reused encoding buffer
  WhileBlocked while_blocked_;
  const ChainTable* chains_;
  bool chaining_started_ = false;
  std::vector<ChainedInput*> chain_list_;  // the tasks chained to this one, for Flush
  const topology::StreamSchema* last_schema_ = nullptr;
  int last_stream_ = -1;
  bool open_ = true;
};

}  // namespace tempest::runtime

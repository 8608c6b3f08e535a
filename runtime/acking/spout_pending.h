#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/acking/ack_ids.h"
#include "topology/value.h"

namespace tempest::runtime {

// The tracked tuples of one spout task whose trees are not decided yet, with Storm's timeout
// rule: Rotate(), called every message timeout T, expires what was added (or touched) two
// rotations ago, so a tuple times out between T and 2T after its emit or last Touch.
//
// Entries live in a slab, and a tree's root id is made of the entry's slot (its low kSlotBits
// bits) and random high bits chosen by the caller: a reply finds its entry by indexing, not by
// hashing, and freed slots are reused last-in first-out, so the working set stays small and in
// cache however many trees are pending (a hash table keyed by random roots misses the cache on
// every access). A reply whose root does not match its slot's (a late or duplicate one) is
// ignored. Time is the caller's: tests rotate by hand. Single-threaded (the spout's task).
//
// Each entry also keeps its tree's ack value, as an acker's ledger does: the XOR of the edge ids
// the spout sent (at Commit) and of the bolts' acks, which may come before the Commit (while the
// spout's emit waits for room downstream). A committed tree whose value is 0 is complete.
class SpoutPending {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  // A tree's message id and emit time. An integer id (the usual kind) is kept unboxed, others
  // as a Value: the id moves into the slab and out again once per tuple on the spout's thread,
  // the busiest of an acked run, and an integer moves without a variant visit.
  struct Entry {
    int64_t int_id = 0;
    bool boxed = false;
    topology::Value boxed_id;
    TimePoint emitted;

    void SetId(topology::Value&& id) {
      if (const int64_t* i = id.IfInt()) {
        int_id = *i;
        boxed = false;
      } else {
        boxed_id = std::move(id);
        boxed = true;
      }
    }
    topology::Value TakeId() { return boxed ? std::move(boxed_id) : topology::Value(int_id); }
    // Moves the id and time of `from` (its boxed id, if any, is left moved-from).
    void MoveFrom(Entry& from) {
      int_id = from.int_id;
      boxed = from.boxed;
      if (boxed) boxed_id = std::move(from.boxed_id);
      emitted = from.emitted;
    }
  };
  static constexpr int kSlotBits = kRootSlotBits;
  static constexpr uint64_t kHighBitsLimit = uint64_t{1} << (64 - kSlotBits);

  // What an ack message, or the Commit, made of a tree.
  enum class Decision { kPending, kCompleted, kFailed, kUnknown };

  // Takes a free slot and returns the root id of a new tree: (high_bits << kSlotBits) | slot.
  // high_bits must be non-zero and below kHighBitsLimit. 0 when every slot is taken (full()).
  uint64_t Reserve(uint64_t high_bits);
  // Fills the entry of a reserved root once its tuples are out; `edges`: the XOR of the edge
  // ids sent, 0 when an acker tracks the tree. kCompleted or kFailed if the bolts' acks or a
  // fail came first: the caller takes the entry (TakeInto) then.
  Decision Commit(uint64_t root, topology::Value&& message_id, TimePoint emitted,
                  uint64_t edges = 0);
  // A bolt's ack (its input's edge XOR the edges it sent) or fail, for a tree this task tracks
  // itself. kCompleted / kFailed: the caller takes the entry (TakeInto); kUnknown: a late or stray
  // message.
  Decision Ack(uint64_t root, uint64_t value) noexcept;
  Decision Fail(uint64_t root) noexcept;
  // Frees a reserved root whose emit went nowhere or threw.
  void Release(uint64_t root) noexcept;

  // Removes the entry of `root`, moving it into `out`; false for a root it does not hold (acked,
  // failed or timed out already: a late reply is ignored).
  bool TakeInto(uint64_t root, Entry& out);
  // Restarts the timeout of `root` (reset_timeout); false for an unknown root.
  bool Touch(uint64_t root);
  // Expires what has not been committed or touched since the rotation before, appending it to
  // `expired`. A reserved root is never expired (a spout blocked while sending its tuples may
  // rotate in between).
  void Rotate(std::vector<Entry>& expired);

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  bool full() const noexcept {
    return free_.empty() && slots_.size() >= (std::size_t{1} << kSlotBits);
  }

 private:
  struct Slot {
    uint64_t root = 0;       // 0: free
    uint64_t epoch = 0;      // the rotation count when committed or last touched
    uint64_t ack_value = 0;  // the XOR of the edges sent and acked so far
    bool committed = false;  // reserved slots are not expired: their tree is still being sent
    bool failed = false;     // failed before its Commit
    Entry entry;
  };
  static Decision DecisionOf(const Slot& s) noexcept {
    if (!s.committed) return Decision::kPending;
    if (s.failed) return Decision::kFailed;
    return s.ack_value == 0 ? Decision::kCompleted : Decision::kPending;
  }
  Slot* Find(uint64_t root) noexcept {
    const uint64_t i = root & ((uint64_t{1} << kSlotBits) - 1);
    if (root == 0 || i >= slots_.size() || slots_[i].root != root) return nullptr;
    return &slots_[i];
  }
  void Free(Slot& s) noexcept {
    s.root = 0;
    s.committed = false;
    s.failed = false;
    // The entry is left as it is: moved out already, or never filled (an emit that went
    // nowhere), and overwritten at the slot's next Commit.
    free_.push_back(static_cast<uint32_t>(&s - slots_.data()));
    --size_;
  }

  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;  // last freed on top
  std::size_t size_ = 0;
  uint64_t epoch_ = 0;
};

// Inline: the spout's thread runs these once or twice per tracked tuple (Reserve and Commit
// at the emit, Ack and TakeInto when the acks come), and it is the busiest thread of an acked run.

inline uint64_t SpoutPending::Reserve(uint64_t high_bits) {
  uint64_t slot = 0;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else if (!full()) {
    slot = slots_.size();
    slots_.emplace_back();
  } else {
    return 0;
  }
  const uint64_t root = (high_bits << kSlotBits) | slot;
  Slot& s = slots_[slot];
  s.root = root;
  s.epoch = epoch_;
  s.ack_value = 0;
  s.failed = false;
  ++size_;
  return root;
}

inline SpoutPending::Decision SpoutPending::Commit(uint64_t root, topology::Value&& message_id,
                                                   TimePoint emitted, uint64_t edges) {
  Slot* s = Find(root);
  if (s == nullptr) return Decision::kUnknown;
  s->entry.SetId(std::move(message_id));
  s->entry.emitted = emitted;
  s->epoch = epoch_;  // rotations while its tuples were being sent do not count
  s->committed = true;
  if (edges == 0) return Decision::kPending;  // an acker tracks the tree: nothing is acked here
  s->ack_value ^= edges;
  return DecisionOf(*s);
}

inline SpoutPending::Decision SpoutPending::Ack(uint64_t root, uint64_t value) noexcept {
  Slot* s = Find(root);
  if (s == nullptr) return Decision::kUnknown;
  s->ack_value ^= value;
  return DecisionOf(*s);
}

inline SpoutPending::Decision SpoutPending::Fail(uint64_t root) noexcept {
  Slot* s = Find(root);
  if (s == nullptr) return Decision::kUnknown;
  s->failed = true;
  return DecisionOf(*s);
}

inline void SpoutPending::Release(uint64_t root) noexcept {
  if (Slot* s = Find(root)) Free(*s);
}

inline bool SpoutPending::TakeInto(uint64_t root, Entry& out) {
  Slot* s = Find(root);
  if (s == nullptr) return false;
  out.MoveFrom(s->entry);
  Free(*s);
  return true;
}

}  // namespace tempest::runtime

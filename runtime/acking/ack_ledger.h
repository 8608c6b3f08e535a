#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/acking/root_table.h"

namespace tempest::runtime {

// The acker's ledger (Storm's acker): for every pending tuple tree, keyed by its 64-bit root id,
// the XOR of the edge ids still open, the spout task (once the spout's init has arrived) and
// whether some tuple of the tree failed. Updates may arrive in any order — an ack before its
// init just XORs into a fresh entry — and a tree is decided once its init has arrived: failed
// if any fail came, complete when the XOR is back to zero. A decided tree leaves the ledger.
//
// The trees of a registered lane (a spout task, runtime/acking/ack_ids.h) live in an array indexed
// by the root's slot: the spout reuses its freed slots first, so the entries in use stay few and
// dense and an update costs an index, not a cache miss on a random hash slot. A root whose slot
// holds another tree (a stale one: the spout reuses a slot only after deciding its tree, but
// that tree's late acks may still come), and any root of no registered lane, goes to two flat
// open-addressing tables (RootTable). Rotate() forgets what was not touched since the rotation
// before, so an entry untouched for two rotations is forgotten — the spout times the tuple out
// itself. Root id 0 is reserved (the spout never draws it). Single-threaded: one acker task owns
// its ledger.
class AckLedger {
 public:
  enum class Outcome {
    kPending,    // not decided yet (or the spout's init has not arrived)
    kCompleted,  // every edge acked: tell the spout task to ack
    kFailed,     // a tuple of the tree failed: tell the spout task to fail
  };
  struct Result {
    Outcome outcome = Outcome::kPending;
    int spout_task = 0;  // set with kCompleted and kFailed
  };

  explicit AckLedger(std::size_t expected_pending = 1024);

  // Keeps the roots of `lane` (a spout task's lane, LaneOfTask) by slot. Lane 0 is ignored.
  void AddLane(uint32_t lane);

  // The spout emitted the root: `xor_edges` is the XOR of the edge ids it sent.
  Result Init(uint64_t root, uint64_t xor_edges, int spout_task);
  // A bolt acked a tuple of the tree: its edge id XOR the edge ids of what it emitted anchored.
  Result Ack(uint64_t root, uint64_t xor_value);
  // A bolt failed a tuple of the tree.
  Result Fail(uint64_t root);
  // A bolt asked to restart the tree's timeout: keeps the entry from being forgotten. Returns the
  // spout task to pass the reset on to, 0 if the tree is unknown or its init has not arrived.
  int Reset(uint64_t root);
  // Forgets what has not been touched since the rotation before; returns how many it forgot.
  std::size_t Rotate();

  std::size_t size() const noexcept { return by_slot_ + current_.size() + previous_.size(); }

  // A lane's array grows up to this many slots; roots of higher slots go to the tables.
  static constexpr uint32_t kMaxLaneSlots = uint32_t{1} << 20;

 private:
  struct Entry {
    uint64_t root = 0;  // 0: empty slot
    uint64_t value = 0;
    int spout_task = 0;  // 0: init not arrived
    uint16_t epoch = 0;  // lanes only: the rotation count when last touched (wraps)
    bool failed = false;
  };

  using Table = RootTable<Entry>;

  // The entry of `root`, created if new: in its lane's array if it may be there, else in the
  // current table (moved there from the previous one).
  Entry& Touch(uint64_t root);
  // The lane array's slot for `root` whatever it holds, or nullptr: no registered lane, or
  // past the array's end.
  Entry* LaneSlot(uint64_t root) noexcept;
  // The lane array's entry of `root` (made if the slot is free, growing the array), or nullptr:
  // not a lane's root, or its slot is held by another tree, or it is in the tables already.
  Entry* LaneEntry(uint64_t root);
  // The entry of `root` without creating one.
  Entry* Find(uint64_t root);
  void Erase(Entry& e);
  Result Decide(Entry& e);

  std::vector<std::vector<Entry>> lanes_;  // by lane; empty: not registered
  std::size_t by_slot_ = 0;                // entries in lanes_
  uint16_t epoch_ = 0;
  Table current_;
  Table previous_;
};

}  // namespace tempest::runtime

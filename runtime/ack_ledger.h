#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/root_table.h"

namespace tempest::runtime {

// The acker's ledger (Storm's acker): for every pending tuple tree, keyed by its 64-bit root id,
// the XOR of the edge ids still open, the spout task (once the spout's init has arrived) and
// whether some tuple of the tree failed. Updates may arrive in any order — an ack before its
// init just XORs into a fresh entry — and a tree is decided once its init has arrived: failed
// if any fail came, complete when the XOR is back to zero. A decided tree leaves the ledger.
//
// Entries live in two flat open-addressing tables (RootTable):
// Rotate() drops the older one, so an entry untouched for two rotations is forgotten — the spout
// times the tuple out itself. Root id 0 is reserved (the spout never draws it). Single-threaded:
// one acker task owns its ledger.
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

  std::size_t size() const noexcept { return current_.size() + previous_.size(); }

 private:
  struct Entry {
    uint64_t root = 0;  // 0: empty slot
    uint64_t value = 0;
    int spout_task = 0;  // 0: init not arrived
    bool failed = false;
  };

  using Table = RootTable<Entry>;

  // The entry of `root` in the current table (moved there from the previous one, or new).
  Entry& Touch(uint64_t root);
  Result Decide(Entry& e);

  Table current_;
  Table previous_;
};

}  // namespace tempest::runtime

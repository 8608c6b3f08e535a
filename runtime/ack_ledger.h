#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tempest::runtime {

// The acker's ledger (Storm's acker): for every pending tuple tree, keyed by its 64-bit root id,
// the XOR of the edge ids still open, the spout task (once the spout's init has arrived) and
// whether some tuple of the tree failed. Updates may arrive in any order — an ack before its
// init just XORs into a fresh entry — and a tree is decided once its init has arrived: failed
// if any fail came, complete when the XOR is back to zero. A decided tree leaves the ledger.
//
// Entries live in two flat open-addressing tables (DESIGN.md §4: ~2× std::unordered_map here):
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

  // Linear probing over a power-of-two table, backward-shift deletion (no tombstones).
  class Table {
   public:
    explicit Table(std::size_t capacity);
    Entry* Find(uint64_t root) noexcept;
    // The entry of `root`, a fresh one (value 0, no spout task) if it had none.
    Entry& FindOrInsert(uint64_t root);
    Entry& Insert(const Entry& e);  // root not present
    void Erase(Entry* e) noexcept;
    void Clear() noexcept;
    std::size_t size() const noexcept { return size_; }

   private:
    std::size_t Slot(uint64_t root) const noexcept {
      // Fibonacci hashing: roots are random already; the multiply spreads any that are not.
      return static_cast<std::size_t>((root * 0x9E3779B97F4A7C15ull) >> shift_);
    }
    void Resize(std::size_t slots);
    std::vector<Entry> slots_;
    std::size_t mask_ = 0;
    int shift_ = 0;
    std::size_t size_ = 0;
  };

  // The entry of `root` in the current table (moved there from the previous one, or new).
  Entry& Touch(uint64_t root);
  Result Decide(Entry& e);

  Table current_;
  Table previous_;
};

}  // namespace tempest::runtime

#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/root_table.h"
#include "topology/value.h"

namespace tempest::runtime {

// The tracked tuples of one spout task whose trees are not decided yet, keyed by root id, with
// Storm's timeout rule (in flat tables: no allocation per tuple once they have grown): two
// generations, Rotate() called every message timeout T expires the older one, so a tuple times out
// between T and 2T after its emit (or its last Touch). Time is the caller's: tests rotate by hand.
// Single-threaded (the spout's task).
class SpoutPending {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  struct Entry {
    topology::Value message_id;
    TimePoint emitted;
  };

  void Add(uint64_t root, topology::Value message_id, TimePoint emitted);
  // Removes the entry of `root`; nullopt for an id it does not know (acked, failed or timed out
  // already: a late reply is ignored).
  std::optional<Entry> Take(uint64_t root);
  // Restarts the timeout of `root` (reset_timeout); false for an unknown id.
  bool Touch(uint64_t root);
  // Expires the older generation, appending its entries to `expired`.
  void Rotate(std::vector<Entry>& expired);

  std::size_t size() const noexcept { return current_.size() + previous_.size(); }
  bool empty() const noexcept { return size() == 0; }

 private:
  struct Slot {
    uint64_t root = 0;
    Entry entry;
  };
  RootTable<Slot> current_{1024};
  RootTable<Slot> previous_{1024};
};

}  // namespace tempest::runtime

#pragma once

#include <cstdint>
#include <type_traits>

#include "bolts/windowing/packed_row.h"
#include "bolts/windowing/row_arena.h"
#include "topology/row_batch.h"

namespace tempest::bolts {

// Packs `source` (a Tuple or a batch row) with `origin` and the fields `read` (nullptr: all)
// into `arena`. A batch row is written straight into what the chunk being filled has left when
// it fits there; otherwise the row is written into a bound on its size, then trimmed. Inline:
// once per row a window or a join holds.
template <class Source>
HeldRow PackInto(RowArena& arena, const Source& source, uint32_t origin, const uint8_t* read) {
  if constexpr (std::is_same_v<Source, topology::RowRef>) {
    const auto [tail, room] = arena.Tail();
    if (const std::size_t n = PackedRow::WriteWithin(source, origin, read, tail, room); n > 0) {
      return arena.Keep(n);
    }
  }
  const std::size_t bound = PackedRow::SizeBound(source, read);
  const auto [row, at] = arena.Allocate(bound);
  arena.Trim(row, bound, PackedRow::Write(source, origin, read, at));
  return row;
}

}  // namespace tempest::bolts

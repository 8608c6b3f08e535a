#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "bolts/windowing/packed_values.h"
#include "topology/row_batch.h"
#include "topology/tuple.h"

// A held tuple, packed: what a packed window keeps of each tuple instead of a Tuple.
//   varint origin << 2 | min(n, 3)   origin: the window's (schema, source task) table, the
//                         stream it came on; n: its ack anchors (Storm's message id)
//   [varint n]            when n >= 3
//   n x (u64 root, u64 pending)
//   varint field count, then the fields packed (packed_values.h)
// `pending` is what the ack of that root will carry: the anchor's edge XOR the edges emitted
// anchored to the tuple so far (its ack value), kept as one word instead of two.
// Internal to the windowed bolts and the join.
namespace tempest::bolts {

struct PackedRow {
  uint32_t origin = 0;
  uint32_t anchors = 0;
  const uint8_t* anchor_bytes = nullptr;  // n x (root, pending)
  const uint8_t* fields = nullptr;
  uint32_t field_count = 0;

  // Parses the header of the row at `data` (inline: a held row is often read for one field).
  static PackedRow Parse(const uint8_t* data) noexcept {
    PackedRow r;
    const uint8_t* p = data;
    const uint64_t head = packed::GetVarint(p);
    r.origin = static_cast<uint32_t>(head >> 2);
    r.anchors = static_cast<uint32_t>(head & 3);
    if (r.anchors == 3) r.anchors = static_cast<uint32_t>(packed::GetVarint(p));
    r.anchor_bytes = p;
    p += 16 * std::size_t{r.anchors};
    r.field_count = static_cast<uint32_t>(packed::GetVarint(p));
    r.fields = p;
    return r;
  }
  // The bytes of `t` packed with `origin`; Write writes them at `at`.
  static std::size_t Size(const topology::Tuple& t, uint32_t origin) noexcept;
  // At least Size, quicker to work out.
  static std::size_t SizeBound(const topology::Tuple& t) noexcept { return SizeBound(t, nullptr); }
  // Returns the bytes written (Size).
  static std::size_t Write(const topology::Tuple& t, uint32_t origin, uint8_t* at) noexcept {
    return Write(t, origin, nullptr, at);
  }
  // As SizeBound and Write, with only the fields i where read[i] != 0 packed and the others
  // null (`read`: one entry per field of t, or nullptr for all).
  static std::size_t SizeBound(const topology::Tuple& t, const uint8_t* read) noexcept;
  static std::size_t Write(const topology::Tuple& t, uint32_t origin, const uint8_t* read,
                           uint8_t* at) noexcept;
  // The same for a batch row: its anchors' edges are the pending words (nothing was emitted
  // anchored to it yet).
  static std::size_t SizeBound(const topology::RowRef& row, const uint8_t* read) noexcept;
  static std::size_t Write(const topology::RowRef& row, uint32_t origin, const uint8_t* read,
                           uint8_t* at) noexcept;
  // As Write, into the `room` bytes at `at`: returns 0 when the row may not fit (what it wrote
  // is then no row), so a row can be written where there is room without a bound worked out
  // first (a loose check: it counts every field at its longest).
  static std::size_t WriteWithin(const topology::RowRef& row, uint32_t origin, const uint8_t* read,
                                 uint8_t* at, std::size_t room) noexcept;
  // Appends `t` packed, with `origin`, to `out`.
  static void Append(const topology::Tuple& t, uint32_t origin, std::string& out);

  // The first anchor's root (a held tuple's identity for failing it); false if it has none.
  bool FirstRoot(uint64_t& out) const noexcept {
    if (anchors == 0) return false;
    std::memcpy(&out, anchor_bytes, 8);
    return true;
  }
  // The row's ack metadata into `out`, equivalent to the tuple's: each anchor's edge is its
  // pending word and the ack value 0 (an ack sends edge ^ ack value per root).
  void LoadAck(topology::AckMeta& out) const;
  // Folds an ack value gained since LoadAck (edges of emits anchored to it) into every pending
  // word. The row's bytes are the caller's, writable.
  void FoldAckVal(uint64_t v) const noexcept;
  // The values into `out` (resized to the field count; strings reuse their buffers).
  void UnpackValues(topology::Values& out) const;
};

}  // namespace tempest::bolts

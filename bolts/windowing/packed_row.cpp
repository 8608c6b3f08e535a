#include "bolts/windowing/packed_row.h"

#include <limits>
#include <span>

#include "bolts/windowing/packed_values.h"

namespace tempest::bolts {

using namespace packed;  // NOLINT: the codec

namespace {

// The varints of a header (head, anchor count, field count) at their longest.
constexpr std::size_t kHeaderBound = 5 + 10 + 10;
// What PackedCellSizeBound gives any cell but long text and side values.
constexpr std::size_t kCellBound = 11 + topology::Cell::kInline;

bool MayExceedCellBound(topology::CellTag tag) noexcept {
  return tag == topology::CellTag::kString || tag == topology::CellTag::kBytes ||
         tag == topology::CellTag::kValue;
}

// The first varint: the origin and the anchor count (3: the count follows).
uint64_t Head(uint32_t origin, std::size_t anchors) noexcept {
  return (uint64_t{origin} << 2) | (anchors < 3 ? anchors : 3);
}

}  // namespace

std::size_t PackedRow::Size(const topology::Tuple& t, uint32_t origin) noexcept {
  const topology::AckMeta& ack = topology::TupleAccess::Ack(t);
  const std::size_t anchors = ack.anchors.size();
  std::size_t n = VarintSize(Head(origin, anchors)) + (anchors >= 3 ? VarintSize(anchors) : 0) +
                  16 * anchors + VarintSize(t.size());
  for (const topology::Value& v : t.GetValues()) n += PackedSize(v);
  return n;
}

std::size_t PackedRow::SizeBound(const topology::Tuple& t, const uint8_t* read) noexcept {
  std::size_t n = 5 + 10 + 16 * topology::TupleAccess::Ack(t).anchors.size() + 10;
  const topology::Values& values = t.GetValues();
  for (std::size_t i = 0; i < values.size(); ++i)
    n += read == nullptr || read[i] != 0 ? PackedSizeBound(values[i]) : 1;
  return n;
}

std::size_t PackedRow::Write(const topology::Tuple& t, uint32_t origin, const uint8_t* read,
                             uint8_t* at) noexcept {
  const topology::AckMeta& ack = topology::TupleAccess::Ack(t);
  uint8_t* p = PutVarint(at, Head(origin, ack.anchors.size()));
  if (ack.anchors.size() >= 3) p = PutVarint(p, ack.anchors.size());
  for (const topology::AckMeta::Anchor& a : ack.anchors) {
    const uint64_t pending = a.edge ^ ack.ack_val;
    std::memcpy(p, &a.root, 8);
    std::memcpy(p + 8, &pending, 8);
    p += 16;
  }
  const topology::Values& values = t.GetValues();
  p = PutVarint(p, values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (read == nullptr || read[i] != 0) {
      p = PackTo(p, values[i]);
    } else {
      *p++ = kNull;
    }
  }
  return static_cast<std::size_t>(p - at);
}

std::size_t PackedRow::SizeBound(const topology::RowRef& row, const uint8_t* read) noexcept {
  std::size_t n = kHeaderBound + 16 * row.anchors().size();
  for (std::size_t i = 0; i < row.size(); ++i)
    n += read == nullptr || read[i] != 0 ? PackedCellSizeBound(row, i) : 1;
  return n;
}

std::size_t PackedRow::Write(const topology::RowRef& row, uint32_t origin, const uint8_t* read,
                             uint8_t* at) noexcept {
  return WriteWithin(row, origin, read, at, std::numeric_limits<std::size_t>::max());
}

// Room is checked once for the header and kCellBound bytes per field, and again at each field
// that may take more (long text, a side value): the usual row costs one comparison.
std::size_t PackedRow::WriteWithin(const topology::RowRef& row, uint32_t origin,
                                   const uint8_t* read, uint8_t* at, std::size_t room) noexcept {
  const std::span<const topology::AckMeta::Anchor> anchors = row.anchors();
  const std::size_t fields = row.size();
  if (room < kHeaderBound + 16 * anchors.size() + kCellBound * fields) return 0;
  uint8_t* p = PutVarint(at, Head(origin, anchors.size()));
  if (anchors.size() >= 3) p = PutVarint(p, anchors.size());
  for (const topology::AckMeta::Anchor& a : anchors) {
    std::memcpy(p, &a.root, 8);
    std::memcpy(p + 8, &a.edge, 8);
    p += 16;
  }
  p = PutVarint(p, fields);
  for (std::size_t i = 0; i < fields; ++i) {
    if (read != nullptr && read[i] == 0) {
      *p++ = kNull;
      continue;
    }
    if (MayExceedCellBound(row.cell(i).tag)) {
      const auto left = room - static_cast<std::size_t>(p - at);
      if (left < PackedCellSizeBound(row, i) + kCellBound * (fields - i - 1)) return 0;
    }
    p = PackCellTo(p, row, i);
  }
  return static_cast<std::size_t>(p - at);
}

void PackedRow::Append(const topology::Tuple& t, uint32_t origin, std::string& out) {
  const std::size_t at = out.size();
  out.resize(at + Size(t, origin));
  Write(t, origin, reinterpret_cast<uint8_t*>(out.data()) + at);
}

void PackedRow::LoadAck(topology::AckMeta& out) const {
  if (out.anchors.size() != anchors) out.anchors.resize(anchors);  // see UnpackValues
  for (uint32_t i = 0; i < anchors; ++i) {
    std::memcpy(&out.anchors[i].root, anchor_bytes + 16 * std::size_t{i}, 8);
    std::memcpy(&out.anchors[i].edge, anchor_bytes + 16 * std::size_t{i} + 8, 8);
  }
  out.ack_val = 0;
}

void PackedRow::FoldAckVal(uint64_t v) const noexcept {
  auto* p = const_cast<uint8_t*>(anchor_bytes) + 8;
  for (uint32_t i = 0; i < anchors; ++i, p += 16) {
    uint64_t pending;
    std::memcpy(&pending, p, 8);
    pending ^= v;
    std::memcpy(p, &pending, 8);
  }
}

void PackedRow::UnpackValues(topology::Values& out) const {
  // boost's resize calls out to insert nothing when the size is already right (a reused tuple).
  if (out.size() != field_count) out.resize(field_count);
  const uint8_t* p = fields;
  for (topology::Value& v : out) UnpackValue(p, v);
}

}  // namespace tempest::bolts

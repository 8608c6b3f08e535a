#include "bolts/windowing/packed_row.h"

#include "bolts/windowing/packed_values.h"

namespace tempest::bolts {

using namespace packed;  // NOLINT: the codec

namespace {

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
  std::size_t n = 5 + 10 + 16 * row.anchors().size() + 10;
  for (std::size_t i = 0; i < row.size(); ++i)
    n += read == nullptr || read[i] != 0 ? PackedCellSizeBound(row, i) : 1;
  return n;
}

std::size_t PackedRow::Write(const topology::RowRef& row, uint32_t origin, const uint8_t* read,
                             uint8_t* at) noexcept {
  const std::span<const topology::AckMeta::Anchor> anchors = row.anchors();
  uint8_t* p = PutVarint(at, Head(origin, anchors.size()));
  if (anchors.size() >= 3) p = PutVarint(p, anchors.size());
  for (const topology::AckMeta::Anchor& a : anchors) {
    std::memcpy(p, &a.root, 8);
    std::memcpy(p + 8, &a.edge, 8);
    p += 16;
  }
  p = PutVarint(p, row.size());
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (read == nullptr || read[i] != 0) {
      p = PackCellTo(p, row, i);
    } else {
      *p++ = kNull;
    }
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

#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "topology/row_batch.h"
#include "topology/value.h"

// The packed form of values that bolts hold for a long time (a window's tuples, a join's stored
// rows): a tag byte per value, then its payload — ints as zigzag varints, doubles their 8 bytes,
// strings and bytes a varint length and the bytes, lists and maps a varint count and their
// elements. A 4-field row of GeneratorSpout's shape packs into about 30 bytes, where a Tuple
// holding it takes 248 plus the string's heap block. Internal to the bolts.
namespace tempest::bolts::packed {

enum Tag : uint8_t { kNull, kFalse, kTrue, kInt, kDouble, kString, kBytes, kList, kMap };

void PutVarint(std::string& out, uint64_t v);
inline uint8_t* PutVarint(uint8_t* p, uint64_t v) noexcept {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}
inline uint64_t GetVarint(const uint8_t*& p) noexcept {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
}
inline std::size_t VarintSize(uint64_t v) noexcept {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
inline uint64_t ZigZag(int64_t v) noexcept {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t v) noexcept {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// `n` bytes from `from` to `to`: up to 16 (most keys and short payloads) inline, as
// topology::CopySmall copies them, more through memcpy.
inline void CopyBytes(uint8_t* to, const char* from, std::size_t n) noexcept {
  if (n <= 16) {
    topology::CopySmall(reinterpret_cast<char*>(to), from, n);
  } else {
    std::memcpy(to, from, n);
  }
}
// A tag, a varint length and the bytes.
inline uint8_t* PutBytes(uint8_t* p, Tag tag, std::string_view s) noexcept {
  *p++ = tag;
  p = PutVarint(p, s.size());
  CopyBytes(p, s.data(), s.size());
  return p + s.size();
}

// The bytes `v` packs into; PackTo writes them at `p` and returns the end.
std::size_t PackedSize(const topology::Value& v) noexcept;
uint8_t* PackTo(uint8_t* p, const topology::Value& v) noexcept;
// At least PackedSize(v), quicker to work out (an int: its largest varint).
inline std::size_t PackedSizeBound(const topology::Value& v) noexcept {
  switch (v.type()) {
    case topology::ValueType::kNull:
    case topology::ValueType::kBool:
      return 1;
    case topology::ValueType::kInt:
    case topology::ValueType::kDouble:
      return 11;
    case topology::ValueType::kString:
      return 11 + v.IfString()->size();
    default:
      return PackedSize(v);
  }
}
// The same for field `field` of a batch row, read from its cell (inline: a held row is packed
// cell by cell on the join's and the window's hot path).
inline uint8_t* PackCellTo(uint8_t* p, const topology::RowRef& row, std::size_t field) noexcept {
  const topology::Cell& c = row.cell(field);
  switch (c.tag) {
    case topology::CellTag::kNull:
      *p++ = kNull;
      return p;
    case topology::CellTag::kFalse:
      *p++ = kFalse;
      return p;
    case topology::CellTag::kTrue:
      *p++ = kTrue;
      return p;
    case topology::CellTag::kInt:
      *p++ = kInt;
      return PutVarint(p, ZigZag(c.Int()));
    case topology::CellTag::kDouble: {
      *p++ = kDouble;
      const double d = c.Double();
      std::memcpy(p, &d, sizeof d);
      return p + sizeof d;
    }
    case topology::CellTag::kShortString:
    case topology::CellTag::kString:
      return PutBytes(p, kString, row.Text(field));
    case topology::CellTag::kShortBytes:
    case topology::CellTag::kBytes:
      return PutBytes(p, kBytes, row.Text(field));
    case topology::CellTag::kValue:
      break;
  }
  return PackTo(p, *row.SideValue(field));
}

// From the cell alone: a short string or bytes counts as the longest that fits a cell (a loose
// bound, read from the tag, for every row a join packs).
inline std::size_t PackedCellSizeBound(const topology::RowRef& row, std::size_t field) noexcept {
  const topology::Cell& c = row.cell(field);
  switch (c.tag) {
    case topology::CellTag::kValue:
      return PackedSize(*row.SideValue(field));
    case topology::CellTag::kString:
    case topology::CellTag::kBytes:
      return 11 + c.Size();
    default:
      return 11 + topology::Cell::kInline;
  }
}
// Appends `v` packed.
void Pack(const topology::Value& v, std::string& out);
// Rebuilds the packed value at `p` into `out`, reusing what it holds where it can (a string's
// buffer); `p` ends past it.
void UnpackValue(const uint8_t*& p, topology::Value& out);
// Appends the packed value at `p` to `out`, constructed in place; `p` ends past it.
void UnpackAppendAny(const uint8_t*& p, topology::Values& out);
inline void UnpackAppend(const uint8_t*& p, topology::Values& out) {
  if (*p == kInt) {  // the usual value, inline: a join's output rows are mostly ints
    ++p;
    out.emplace_back(UnZigZag(GetVarint(p)));
    return;
  }
  UnpackAppendAny(p, out);
}
// Appends the packed value at `p` to `out`'s open row as a cell (RowBatch::AddInt and the like);
// `p` ends past it.
void UnpackCellAny(const uint8_t*& p, topology::RowBatch& out);
inline void UnpackCell(const uint8_t*& p, topology::RowBatch& out) {
  if (*p == kInt) {
    ++p;
    out.AddInt(UnZigZag(GetVarint(p)));
    return;
  }
  UnpackCellAny(p, out);
}
// Moves `p` past the packed value at it.
void SkipAny(const uint8_t*& p) noexcept;
inline void Skip(const uint8_t*& p) noexcept {
  if (*p == kInt) {
    ++p;
    while (*p++ >= 0x80) {
    }
    return;
  }
  SkipAny(p);
}
// Whether the packed value at `p` equals `v` as Value's == has it (so 0.0 == -0.0 and NaN matches
// nothing, which comparing bytes would get wrong); on true, `p` is past it.
bool PackedEquals(const uint8_t*& p, const topology::Value& v) noexcept;

// The packed value at `path` in a row of `count` packed fields starting at `fields`: the field
// at `index` (-1: none), then per further step the value of that string key in a map (as
// LookupPath does for tuples); nullptr when a step is missing or a non-final step is not a map.
// Inline up to the field (the usual, top-level case: a path of one step).
const uint8_t* FindNested(const uint8_t* p, const std::vector<std::string>& path) noexcept;
inline const uint8_t* FindPath(const uint8_t* fields, uint32_t count, int index,
                               const std::vector<std::string>& path) noexcept {
  if (index < 0 || static_cast<uint32_t>(index) >= count) return nullptr;
  const uint8_t* p = fields;
  for (int i = 0; i < index; ++i) Skip(p);
  return path.size() <= 1 ? p : FindNested(p, path);
}

}  // namespace tempest::bolts::packed

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bolts/windowing/packed_row.h"
#include "bolts/windowing/packed_values.h"
#include "topology/row_batch.h"
#include "topology/tuple.h"

namespace tempest::bolts {

// Where a held row came from: the stream it came on and the task that emitted it.
struct JoinRowOrigin {
  const topology::StreamSchema* schema = nullptr;
  int task = 0;
};

// An element of an interval join as the state shows it to its sink: the tuple being added, or a
// row the state holds, packed (bolts/windowing/packed_row.h). Only what the sink asks for is
// read, so a held row that is not looked at costs nothing. Valid during the sink's call only.
class IntervalJoinRow {
 public:
  explicit IntervalJoinRow(const topology::Tuple& added) noexcept : added_(&added) {}
  // A held row; `origins`: its side's table, indexed by the row's origin.
  IntervalJoinRow(uint8_t* packed, const JoinRowOrigin* origins) noexcept
      : packed_(packed), origins_(origins) {}

  // The tuple being added; null for a held row.
  const topology::Tuple* added() const noexcept { return added_; }
  const topology::StreamSchema* schema() const noexcept {
    return added_ != nullptr ? added_->schema() : Origin().schema;
  }
  int source_task() const noexcept {
    return added_ != nullptr ? added_->GetSourceTask() : Origin().task;
  }

  // Appends to `out` the value LookupPath(row, index, path) finds, or null when it finds none.
  void AppendValue(int index, const std::vector<std::string>& path, topology::Values& out) const;
  // As AppendValue, as a cell of `out`'s open row (inline: per selected field of an output row).
  void AppendCell(int index, const std::vector<std::string>& path, topology::RowBatch& out) const {
    const Found f = Find(index, path);
    const uint8_t* p = f.packed;
    if (f.value != nullptr) {
      out.AddValue(*f.value);
    } else if (p != nullptr) {
      packed::UnpackCell(p, out);
    } else {
      out.AddNull();
    }
  }
  // Appends field `index` (null when the row has no such field).
  void AppendField(int index, topology::Values& out) const;

  // Whether the row has ack anchors (acking is on). Inline, as Origin: asked of every row that
  // joins or leaves.
  bool tracked() const noexcept {
    if (added_ != nullptr) return !topology::TupleAccess::Ack(*added_).anchors.empty();
    // The anchor count is in the first varint's low bits; the origin above them.
    const uint8_t* p = packed_;
    return (packed::GetVarint(p) & 3) != 0;
  }
  // Makes `scratch` a stand-in to anchor an emit to: the row's stream, source and ack metadata
  // (its values are left alone). FoldAck then gives the row the ack value the emit added.
  void LoadAnchor(topology::Tuple& scratch) const;
  void FoldAck(const topology::Tuple& scratch) const noexcept;
  // The row as a whole Tuple in `out` (stream, source, values, ack metadata): to ack or fail it,
  // or for a receiver that reads Tuples. Reuses what `out` holds.
  void Unpack(topology::Tuple& out) const;

 private:
  // Where field `index` at `path` is: a value of the added tuple, or the packed bytes of a held
  // row's; both null when the row has no such field.
  struct Found {
    const topology::Value* value;
    const uint8_t* packed;
  };
  // Inline: two calls per output row of two selected fields.
  Found Find(int index, const std::vector<std::string>& path) const {
    if (added_ != nullptr) return {FindAdded(index, path), nullptr};
    const PackedRow r = PackedRow::Parse(packed_);
    return {nullptr, packed::FindPath(r.fields, r.field_count, index, path)};
  }
  const topology::Value* FindAdded(int index, const std::vector<std::string>& path) const;
  const JoinRowOrigin& Origin() const noexcept {
    if (origin_ == nullptr) {
      const uint8_t* p = packed_;
      origin_ = &origins_[packed::GetVarint(p) >> 2];  // the first varint: origin << 2 | anchors
    }
    return *origin_;
  }

  const topology::Tuple* added_ = nullptr;
  uint8_t* packed_ = nullptr;
  const JoinRowOrigin* origins_ = nullptr;
  mutable const JoinRowOrigin* origin_ = nullptr;  // found on first use
};

}  // namespace tempest::bolts

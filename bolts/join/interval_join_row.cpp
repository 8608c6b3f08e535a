#include "bolts/join/interval_join_row.h"

#include "bolts/join/field_selector.h"
#include "bolts/windowing/packed_values.h"

namespace tempest::bolts {

const topology::Value* IntervalJoinRow::FindAdded(int index,
                                                  const std::vector<std::string>& path) const {
  return LookupPath(*added_, index, path);
}

void IntervalJoinRow::AppendValue(int index, const std::vector<std::string>& path,
                                  topology::Values& out) const {
  const Found f = Find(index, path);
  const uint8_t* p = f.packed;
  if (f.value != nullptr) {
    out.push_back(*f.value);
  } else if (p != nullptr) {
    packed::UnpackAppend(p, out);
  } else {
    out.emplace_back();
  }
}

void IntervalJoinRow::AppendField(int index, topology::Values& out) const {
  if (added_ != nullptr) {
    if (index >= 0 && static_cast<std::size_t>(index) < added_->size()) {
      out.push_back(added_->GetValues()[static_cast<std::size_t>(index)]);
    } else {
      out.emplace_back();
    }
    return;
  }
  const PackedRow r = PackedRow::Parse(packed_);
  if (index < 0 || static_cast<uint32_t>(index) >= r.field_count) {
    out.emplace_back();
    return;
  }
  const uint8_t* p = r.fields;
  for (int i = 0; i < index; ++i) packed::Skip(p);
  packed::UnpackAppend(p, out);
}

void IntervalJoinRow::LoadAnchor(topology::Tuple& scratch) const {
  topology::TupleAccess::Rebind(scratch, schema(), source_task());
  topology::AckMeta& ack = topology::TupleAccess::MutableAck(scratch);
  if (added_ != nullptr) {
    ack = topology::TupleAccess::Ack(*added_);
  } else {
    PackedRow::Parse(packed_).LoadAck(ack);
  }
}

void IntervalJoinRow::FoldAck(const topology::Tuple& scratch) const noexcept {
  const uint64_t gained = topology::TupleAccess::Ack(scratch).ack_val;
  if (added_ != nullptr) {
    // The stand-in started from the added tuple's ack value and gained the emit's edges.
    topology::TupleAccess::Ack(*added_).ack_val = gained;
  } else if (gained != 0) {
    PackedRow::Parse(packed_).FoldAckVal(gained);
  }
}

void IntervalJoinRow::Unpack(topology::Tuple& out) const {
  if (added_ != nullptr) {
    out = *added_;
    return;
  }
  const PackedRow r = PackedRow::Parse(packed_);
  const JoinRowOrigin& o = Origin();
  topology::TupleAccess::Rebind(out, o.schema, o.task);
  r.UnpackValues(topology::TupleAccess::MutableValues(out));
  r.LoadAck(topology::TupleAccess::MutableAck(out));
}

}  // namespace tempest::bolts

#include "topology/row_batch.h"

#include <limits>
#include <stdexcept>

namespace tempest::topology {

Cell RowBatch::CopyLongText(CellTag tag, std::string_view text) {
  const std::size_t offset = arena_.size();
  if (offset + text.size() > std::numeric_limits<uint32_t>::max()) {
    throw std::length_error("a batch's strings passed 4 GiB");
  }
  arena_.insert(arena_.end(), text.begin(), text.end());
  return Cell::Ref(tag, static_cast<uint32_t>(offset), static_cast<uint32_t>(text.size()));
}

Cell RowBatch::Encode(const Value& v) {
  switch (v.type()) {
    case ValueType::kNull:
      return Cell::Of(CellTag::kNull);
    case ValueType::kBool:
      return Cell::Of(v.AsBool() ? CellTag::kTrue : CellTag::kFalse);
    case ValueType::kInt:
      return Cell::Scalar(CellTag::kInt, *v.IfInt());
    case ValueType::kDouble:
      return Cell::Scalar(CellTag::kDouble, *v.IfDouble());
    case ValueType::kString:
      return CopyText(CellTag::kShortString, CellTag::kString, *v.IfString());
    case ValueType::kBytes:
      return CopyText(CellTag::kShortBytes, CellTag::kBytes, v.AsBytes().data);
    case ValueType::kList:
    case ValueType::kMap:
      break;
  }
  side_.push_back(v);
  return Cell::Scalar(CellTag::kValue, static_cast<uint32_t>(side_.size() - 1));
}

void RowBatch::AppendRow(const StreamSchema* schema, const RowRef& from,
                         std::span<const AckMeta::Anchor> anchors) {
  for (std::size_t i = 0; i < from.size(); ++i) {
    const Cell& c = from.cell(i);
    switch (c.tag) {
      case CellTag::kString:
      case CellTag::kBytes:
        cells_.push_back(
            CopyText(c.tag == CellTag::kString ? CellTag::kShortString : CellTag::kShortBytes,
                     c.tag, from.Text(i)));
        break;
      case CellTag::kValue:
        cells_.push_back(Encode(from.GetValue(i)));
        break;
      default:
        cells_.push_back(c);
    }
  }
  AddHeader(schema, from.size(), anchors);
}

Value RowRef::GetValue(std::size_t field) const {
  const Cell& c = cells_[field];
  switch (c.tag) {
    case CellTag::kNull:
      return Value();
    case CellTag::kFalse:
      return Value(false);
    case CellTag::kTrue:
      return Value(true);
    case CellTag::kInt:
      return Value(c.Int());
    case CellTag::kDouble:
      return Value(c.Double());
    case CellTag::kShortString:
    case CellTag::kString:
      return Value(Text(field));
    case CellTag::kShortBytes:
    case CellTag::kBytes:
      return Value(Bytes{std::string(Text(field))});
    case CellTag::kValue:
      break;
  }
  uint32_t index;
  std::memcpy(&index, c.bytes, 4);
  return batch_->side_[index];
}

void RowRef::LoadValues(Values& out) const {
  out.resize(size());
  for (std::size_t i = 0; i < size(); ++i) {
    const Cell& c = cell(i);
    Value& v = out[i];
    switch (c.tag) {
      case CellTag::kInt:
        v = Value(c.Int());
        break;
      case CellTag::kShortString:
      case CellTag::kString:
        v.AssignString(Text(i));
        break;
      default:
        v = GetValue(i);
    }
  }
}

void RowRef::Load(int source_task, Tuple& out) const {
  TupleAccess::Rebind(out, schema(), source_task);
  LoadValues(TupleAccess::MutableValues(out));
  AckMeta& ack = TupleAccess::MutableAck(out);
  const std::span<const AckMeta::Anchor> anchors = this->anchors();
  ack.anchors.assign(anchors.begin(), anchors.end());
  ack.ack_val = 0;
}

}  // namespace tempest::topology

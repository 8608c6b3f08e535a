#include "topology/row_batch.h"

#include <limits>
#include <stdexcept>

namespace tempest::topology {

void RowBatch::CopyLongText(CellTag tag, std::string_view text) {
  const std::size_t offset = arena_.size();
  if (offset + text.size() > std::numeric_limits<uint32_t>::max()) {
    throw std::length_error("a batch's strings passed 4 GiB");
  }
  arena_.Append(text.data(), text.data() + text.size());
  const auto at = static_cast<uint32_t>(offset);
  const auto size = static_cast<uint32_t>(text.size());
  Cell& c = NewCell(tag);
  std::memcpy(c.bytes, &at, 4);
  std::memcpy(c.bytes + 4, &size, 4);
}

void RowBatch::AddValue(const Value& v) {
  switch (v.type()) {
    case ValueType::kNull:
      return AddNull();
    case ValueType::kBool:
      return AddBool(v.AsBool());
    case ValueType::kInt:
      return AddInt(*v.IfInt());
    case ValueType::kDouble:
      return AddDouble(*v.IfDouble());
    case ValueType::kString:
      return AddString(*v.IfString());
    case ValueType::kBytes:
      return AddBytes(v.AsBytes().data);
    case ValueType::kList:
    case ValueType::kMap:
      break;
  }
  side_.push_back(v);
  const auto index = static_cast<uint32_t>(side_.size() - 1);
  std::memcpy(NewCell(CellTag::kValue).bytes, &index, sizeof index);
}

void RowBatch::AppendRow(const StreamSchema* schema, const RowRef& from,
                         std::span<const AckMeta::Anchor> anchors) {
  AppendCells(from);
  AddHeader(schema, from.size(), anchors);
}

void RowBatch::AppendRows(const StreamSchema* schema, const RowBatch& from, std::size_t begin,
                          std::size_t end) {
  if (begin >= end) return;
  if (!from.arena_.empty() || !from.side_.empty() || !from.anchors_.empty()) {
    for (std::size_t i = begin; i < end; ++i) AppendRow(schema, from[i]);
    return;
  }
  // Cells refer to nothing outside themselves: the block moves as it is, each row's first cell
  // shifted by where the block lands.
  const uint32_t first = from.rows_[begin].first_cell;
  const uint32_t last = from.rows_[end - 1].first_cell + from.rows_[end - 1].cells;
  const auto shift = static_cast<uint32_t>(cells_.size()) - first;
  cells_.Append(from.cells_.begin() + first, from.cells_.begin() + last);
  const auto no_anchors = static_cast<uint32_t>(anchors_.size());
  for (std::size_t i = begin; i < end; ++i) {
    const Row& r = from.rows_[i];
    rows_.push_back(Row{schema, r.first_cell + shift, r.cells, no_anchors, 0});
  }
}

void RowBatch::AppendCells(const RowRef& from) {
  for (std::size_t i = 0; i < from.size(); ++i) {
    const Cell& c = from.cell(i);
    switch (c.tag) {
      case CellTag::kString:
        AddString(from.Text(i));
        break;
      case CellTag::kBytes:
        AddBytes(from.Text(i));
        break;
      case CellTag::kValue:
        AddValue(from.GetValue(i));
        break;
      default:
        cells_.push_back(c);
    }
  }
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
  return *SideValue(field);
}

const Value* RowRef::SideValue(std::size_t field) const noexcept {
  const Cell& c = cells_[field];
  if (c.tag != CellTag::kValue) return nullptr;
  uint32_t index;
  std::memcpy(&index, c.bytes, 4);
  return &batch_->side_[index];
}

void RowRef::LoadValueOutOfLine(std::size_t field, Value& out) const {
  const Cell& c = cell(field);
  switch (c.tag) {
    case CellTag::kInt:
      out = Value(c.Int());
      break;
    case CellTag::kShortString:
    case CellTag::kString:
      out.AssignString(Text(field));
      break;
    default:
      out = GetValue(field);
  }
}

void RowRef::Load(int source_task, Tuple& out) const {
  TupleAccess::Rebind(out, schema(), source_task);
  LoadValues(TupleAccess::MutableValues(out));
  AckMeta& ack = TupleAccess::MutableAck(out);
  const std::span<const AckMeta::Anchor> anchors = this->anchors();
  if (anchors.size() == 1 && ack.anchors.size() == 1) {
    ack.anchors[0] = anchors[0];  // the usual row, into the tuple of the row before: no assign
  } else {
    ack.anchors.assign(anchors.begin(), anchors.end());
  }
  ack.ack_val = 0;
}

}  // namespace tempest::topology

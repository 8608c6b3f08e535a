#pragma once

// Tuples as the rows of the batch they travel in (internal to Tempest; user code sees Tuple).

#include <cassert>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "topology/pod_vector.h"
#include "topology/tuple.h"

namespace tempest::topology {

enum class CellTag : uint8_t {
  kNull,
  kFalse,
  kTrue,
  kInt,
  kDouble,
  kShortString,  // up to Cell::kInline bytes, in the cell
  kString,       // in the batch's arena
  kShortBytes,
  kBytes,
  kValue,  // a list or a map: the batch keeps the Value (a shared, immutable payload)
};

// One field of a row in 16 bytes: a scalar; a string or bytes of up to 14 bytes in the cell, a
// longer one as (offset, size) in its batch's arena; a list or map as an index into the batch's
// side values. Trivially copyable.
struct Cell {
  static constexpr std::size_t kInline = 14;

  alignas(8) char bytes[kInline];
  uint8_t size;  // inline length
  CellTag tag;

  int64_t Int() const noexcept { return Load<int64_t>(); }
  double Double() const noexcept { return Load<double>(); }
  uint32_t Offset() const noexcept { return Load<uint32_t>(); }
  uint32_t Size() const noexcept {
    uint32_t s;
    std::memcpy(&s, bytes + 4, 4);
    return s;
  }

 private:
  template <class T>
  T Load() const noexcept {
    T v;
    std::memcpy(&v, bytes, sizeof v);
    return v;
  }
};
static_assert(sizeof(Cell) == 16);

// Copies n <= 16 bytes in two fixed-size moves (overlapping), not a call to memcpy: most
// strings of a stream (words, keys) are this short.
inline void CopySmall(char* to, const char* from, std::size_t n) noexcept {
  if (n >= 8) {
    std::memcpy(to, from, 8);
    std::memcpy(to + n - 8, from + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(to, from, 4);
    std::memcpy(to + n - 4, from + n - 4, 4);
  } else {
    for (std::size_t i = 0; i < n; ++i) to[i] = from[i];
  }
}

class RowBatch;

// A row of a batch, read in place: valid while its batch is neither cleared nor appended to.
class RowRef {
 public:
  RowRef(const RowBatch& batch, std::size_t row) noexcept;

  const RowBatch& batch() const noexcept { return *batch_; }
  std::size_t index() const noexcept { return row_; }  // in batch()

  const StreamSchema* schema() const noexcept;
  std::size_t size() const noexcept { return cells_.size(); }
  const Cell& cell(std::size_t field) const noexcept { return cells_[field]; }
  std::span<const Cell> cells() const noexcept { return cells_; }
  std::span<const AckMeta::Anchor> anchors() const noexcept;

  // The string or bytes of a cell of those kinds; empty for any other.
  std::string_view Text(std::size_t field) const noexcept;
  // The field as a Value (allocates for a long string).
  Value GetValue(std::size_t field) const;
  // The list or map of a kValue cell, where the batch keeps it; null for any other cell.
  const Value* SideValue(std::size_t field) const noexcept;
  // The row's values into `out` (resized; strings reuse their buffers).
  void LoadValues(Values& out) const {
    // boost's resize calls out to insert nothing when the size is already right (a reused tuple).
    if (out.size() != size()) out.resize(size());
    for (std::size_t i = 0; i < size(); ++i) LoadValue(i, out[i]);
  }
  // Field `field` into `out` (a string reuses its buffer). Inline for a short string over a
  // string (a user bolt's reused input tuple, field by field), else the call.
  void LoadValue(std::size_t field, Value& out) const {
    const Cell& c = cells_[field];
    if (c.tag == CellTag::kShortString) {
      // Value has no mutable accessor; `out` itself is not const.
      if (auto* s = const_cast<std::string*>(out.IfString())) {
        // Resized without libstdc++'s out-of-line assign: every string holds 15 characters
        // without allocating, so growing to a cell's 14 at most is a push per character, and
        // shrinking only sets the length.
        while (s->size() < c.size) s->push_back('\0');
        s->erase(c.size);
        CopySmall(s->data(), c.bytes, c.size);
        return;
      }
    }
    LoadValueOutOfLine(field, out);
  }
  // Makes `out` the tuple of this row, sent by `source_task` (RowBatch::Load).
  void Load(int source_task, Tuple& out) const;
  // Whether field `field` is a string (inline or not).
  bool IsString(std::size_t field) const noexcept {
    return cells_[field].tag == CellTag::kShortString || cells_[field].tag == CellTag::kString;
  }

 private:
  void LoadValueOutOfLine(std::size_t field, Value& out) const;

  const RowBatch* batch_;
  std::size_t row_;
  std::span<const Cell> cells_;
};

// A batch of tuples as packed rows: a 24-byte header per row, 16 bytes per field, long strings
// and bytes back to back in one arena, ack anchors in a side array. Appending copies a tuple's
// values in without allocating once the batch's buffers have grown (they keep their capacity
// through Clear, and batches circulate between a producer and its consumer). A Tuple is built
// from a row only for code that wants one (Load: user bolts). Single-threaded; movable.
class RowBatch {
 public:
  std::size_t size() const noexcept { return rows_.size(); }
  bool empty() const noexcept { return rows_.empty(); }
  // Whether any row has ack anchors (none when acking is off).
  bool has_anchors() const noexcept { return !anchors_.empty(); }
  // The ack anchors of all rows, in row order: how many, and one to change (Outbox::FoldAck).
  std::size_t anchor_count() const noexcept { return anchors_.size(); }
  AckMeta::Anchor& anchor(std::size_t i) noexcept { return anchors_[i]; }
  // Rows the batch has room for without growing.
  std::size_t capacity() const noexcept { return rows_.capacity(); }
  // Room for `rows` rows of up to four fields (kReservedRowBytes each).
  void reserve(std::size_t rows) {
    rows_.reserve(rows);
    cells_.reserve(4 * rows);
  }
  static constexpr std::size_t kReservedRowBytes = 24 + 4 * sizeof(Cell);
  // Empties the batch, keeping its buffers.
  void Clear() noexcept {
    rows_.clear();
    cells_.clear();
    arena_.clear();
    anchors_.clear();
    side_.clear();
  }

  // Inline into the emit path (Outbox::Send): a call of its own saved and restored six registers
  // per emitted tuple.
  [[gnu::always_inline]] void Append(const StreamSchema* schema, const Values& values,
                                     std::span<const AckMeta::Anchor> anchors = {}) {
    for (const Value& v : values) {
      if (const int64_t* i = v.IfInt()) {
        AddInt(*i);
      } else if (const std::string* text = v.IfString()) {
        PushText(CellTag::kShortString, CellTag::kString, *text);
      } else {
        AddValue(v);
      }
    }
    AddHeader(schema, values.size(), anchors);
  }
  // Overwrites field `field` of row `row`, an integer, with `i`: a row emitted again and again
  // with only its integers changing (GeneratorSpout's) is built once.
  void SetInt(std::size_t row, std::size_t field, int64_t i) noexcept {
    Cell& c = cells_[rows_[row].first_cell + field];
    assert(c.tag == CellTag::kInt);
    std::memcpy(c.bytes, &i, sizeof i);
  }
  // Copies the values of `from` (a row of any batch), on stream `schema`, with other anchors.
  void AppendRow(const StreamSchema* schema, const RowRef& from,
                 std::span<const AckMeta::Anchor> anchors = {});
  // Appends the values of `from` to the open row, as AddInt and the like would.
  void AppendCells(const RowRef& from);
  // Appends rows [begin, end) of `from` on stream `schema`, without anchors, as AppendRow would
  // each: their cells copied in one block when `from` holds no long text, side values or
  // anchors (rows built as cells of ints and short strings), else row by row.
  void AppendRows(const StreamSchema* schema, const RowBatch& from, std::size_t begin,
                  std::size_t end);

  // A row built field by field (a decoder): its fields in order, its anchors, then EndRow with
  // their counts.
  void AddNull() { NewCell(CellTag::kNull); }
  void AddBool(bool b) { NewCell(b ? CellTag::kTrue : CellTag::kFalse); }
  void AddInt(int64_t i) { std::memcpy(NewCell(CellTag::kInt).bytes, &i, sizeof i); }
  void AddDouble(double d) { std::memcpy(NewCell(CellTag::kDouble).bytes, &d, sizeof d); }
  void AddString(std::string_view s) { PushText(CellTag::kShortString, CellTag::kString, s); }
  void AddBytes(std::string_view b) { PushText(CellTag::kShortBytes, CellTag::kBytes, b); }
  void AddValue(const Value& v);
  void AddAnchor(AckMeta::Anchor a) { anchors_.push_back(a); }
  // The cells added since the last EndRow (of a row being built).
  std::size_t OpenCells() const noexcept {
    return rows_.empty() ? cells_.size()
                         : cells_.size() - rows_.back().first_cell - rows_.back().cells;
  }
  // Takes back the cells of a row being built (found wrong, or its builder threw).
  void DropOpenCells() { cells_.Truncate(cells_.size() - OpenCells()); }
  void EndRow(const StreamSchema* schema, std::size_t fields, std::size_t anchors) {
    rows_.push_back(
        Row{schema, static_cast<uint32_t>(cells_.size() - fields), static_cast<uint32_t>(fields),
            static_cast<uint32_t>(anchors_.size() - anchors), static_cast<uint32_t>(anchors)});
  }

  RowRef operator[](std::size_t row) const noexcept { return RowRef(*this, row); }
  // Makes `out` the tuple of row `row`, sent by `source_task`: its values (reusing the strings
  // `out` already holds), stream and ack anchors (ack value 0).
  void Load(std::size_t row, int source_task, Tuple& out) const {
    (*this)[row].Load(source_task, out);
  }

 private:
  friend class RowRef;
  struct Row {
    const StreamSchema* schema;
    uint32_t first_cell;
    uint32_t cells;
    uint32_t first_anchor;
    uint32_t anchors;
  };
  static_assert(sizeof(Row) == 24);

  // Cells are written in place, field by field: a cell built aside in small stores and then
  // copied whole would wait for those stores (a failed store forward), on every field.
  Cell& NewCell(CellTag tag) {
    Cell& c = cells_.emplace_back();
    c.tag = tag;
    return c;
  }
  void PushText(CellTag short_tag, CellTag long_tag, std::string_view text) {
    if (text.size() > Cell::kInline) {
      CopyLongText(long_tag, text);
      return;
    }
    Cell& c = NewCell(short_tag);
    CopySmall(c.bytes, text.data(), text.size());
    c.size = static_cast<uint8_t>(text.size());
  }
  // Appends a cell referring to `text` copied into the arena.
  void CopyLongText(CellTag tag, std::string_view text);
  void AddHeader(const StreamSchema* schema, std::size_t cells,
                 std::span<const AckMeta::Anchor> anchors) {
    // Field by field: the anchors were usually written just now, and a whole-struct copy
    // would wait for those stores (a failed store forward).
    for (const AckMeta::Anchor& a : anchors) {
      AckMeta::Anchor& to = anchors_.emplace_back();
      to.root = a.root;
      to.edge = a.edge;
    }
    EndRow(schema, cells, anchors.size());
  }

  PodVector<Row> rows_;
  PodVector<Cell> cells_;
  PodVector<char> arena_;
  PodVector<AckMeta::Anchor> anchors_;
  std::vector<Value> side_;
};

inline RowRef::RowRef(const RowBatch& batch, std::size_t row) noexcept
    : batch_(&batch),
      row_(row),
      cells_(batch.cells_.data() + batch.rows_[row].first_cell, batch.rows_[row].cells) {}

inline const StreamSchema* RowRef::schema() const noexcept { return batch_->rows_[row_].schema; }

inline std::span<const AckMeta::Anchor> RowRef::anchors() const noexcept {
  const RowBatch::Row& r = batch_->rows_[row_];
  return {batch_->anchors_.data() + r.first_anchor, r.anchors};
}

inline std::string_view RowRef::Text(std::size_t field) const noexcept {
  const Cell& c = cells_[field];
  switch (c.tag) {
    case CellTag::kShortString:
    case CellTag::kShortBytes:
      return {c.bytes, c.size};
    case CellTag::kString:
    case CellTag::kBytes:
      return {batch_->arena_.data() + c.Offset(), c.Size()};
    default:
      return {};
  }
}

}  // namespace tempest::topology

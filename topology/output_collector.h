#pragma once

// The public collectors live in tempest/output_collector.h; this adds the runtime's fast paths
// for bolts that emit many rows at a time (the joins) and for spouts that build rows.
#include <cstddef>
#include <string_view>

#include "tempest/output_collector.h"
#include "topology/tuple.h"

namespace tempest::topology {

class RowBatch;
class RowRef;

// Builds the rows of EmitRows, one call per row, into `values` (empty; it may be the outgoing
// tuple's own storage).
class RowFiller {
 public:
  virtual void Fill(std::size_t row, Values& values) = 0;
  // A filler that can also append row `row`'s fields straight to a batch's open row as cells
  // (RowBatch::AddInt and the like), the same fields Fill gives, says so; FillCells then returns
  // how many it appended. Where the row goes to one local task it is built there, without Values.
  virtual bool FillsCells() const noexcept { return false; }
  virtual std::size_t FillCells(std::size_t row, RowBatch& out) {
    (void)row;
    (void)out;
    return 0;
  }
  // A filler whose rows are already built as cells, rows 0 to count - 1 of a batch (any stream,
  // no anchors), gives that batch: a local destination then takes them in one block.
  virtual const RowBatch* BuiltRows() const noexcept { return nullptr; }

 protected:
  ~RowFiller() = default;
};

// A collector that takes `count` unanchored rows of one stream in one call, row i built by
// filler.Fill(i, values): the same as `count` calls of Emit(stream, values) in order, but the
// stream is looked up and checked once, and where none of its groupings reads the values
// (shuffle, global, all, none) each row is built straight into the tuple that goes out. In a
// windowed bolt the rows are anchored to the window, as Emit's are. The runtime's collectors
// and the windowed adapters are RowEmitters.
class RowEmitter {
 public:
  virtual void EmitRows(std::string_view stream, std::size_t count, RowFiller& filler) = 0;

 protected:
  ~RowEmitter() = default;
};

// `out`'s RowEmitter side, or null: look it up once (in Prepare), not per call.
inline RowEmitter* RowEmitterOf(OutputCollector& out) noexcept {
  return dynamic_cast<RowEmitter*>(&out);
}

// Emits the rows through `rows` (RowEmitterOf(out)) when there is one, else one Emit per row.
inline void EmitRows(OutputCollector& out, RowEmitter* rows, std::string_view stream,
                     std::size_t count, RowFiller& filler) {
  if (rows != nullptr) {
    rows->EmitRows(stream, count, filler);
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    Values values;
    filler.Fill(i, values);
    out.Emit(stream, std::move(values));
  }
}

// A spout collector that takes a tuple its spout built as a row of a batch it keeps (the
// runtime's): a built-in spout writes its fields as cells once, and they go out without Values.
class SpoutRowEmitter {
 public:
  // As SpoutOutputCollector::Emit(stream, values, message_id), with `row`'s fields.
  virtual void EmitRow(std::string_view stream, const RowRef& row, Value message_id) = 0;

 protected:
  ~SpoutRowEmitter() = default;
};

// `out`'s SpoutRowEmitter side, or null: look it up once (in Open), not per call.
inline SpoutRowEmitter* SpoutRowEmitterOf(SpoutOutputCollector& out) noexcept {
  return dynamic_cast<SpoutRowEmitter*>(&out);
}

}  // namespace tempest::topology

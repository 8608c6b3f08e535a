#pragma once

// The public Bolt lives in tempest/bolt.h; this adds the runtime's hook for bolts that keep
// their inputs.
#include "tempest/bolt.h"
#include "topology/output_collector.h"
#include "topology/row_batch.h"
#include "topology/tuple.h"

namespace tempest::topology {

// A built-in bolt that keeps its inputs (a window, a join's state). The runtime calls
// ExecuteOwned instead of Execute with a tuple it owns and is done with afterwards, so the bolt
// may move from it instead of copying. Leave the tuple's ack metadata in place if the bolt may
// still fail it by throwing.
class OwningBolt : public Bolt {
 public:
  virtual void ExecuteOwned(Tuple& input) = 0;
};

// What a BatchBolt does with its input rows besides emitting through its OutputCollector.
class BatchCollector {
 public:
  // Sends a copy of the row's values on `stream` (of the row's fields), anchored to the row;
  // returns the ack value that anchoring added (pass it to AckRow).
  virtual uint64_t ForwardRow(std::string_view stream, const RowRef& row) = 0;
  // Emits `values` on `stream` anchored to the row; returns the ack value as ForwardRow does.
  virtual uint64_t EmitAnchored(std::string_view stream, const RowRef& row, Values&& values) = 0;
  // Runs the bolt's Execute on the row as a Tuple, with the per-tuple path's handling of what it
  // throws (logged, the input failed): for a row the batch path does not take (a missing field).
  virtual void ExecuteAsTuple(const RowRef& row) = 0;
  // Acks the row, with the ack value of what was anchored to it; Ack(tuple) for a row.
  virtual void AckRow(const RowRef& row, uint64_t ack_val = 0) = 0;
  // Acks every row of the batch, as AckRow(row) on each: a sink's whole batch in one call.
  virtual void AckRows(const RowBatch& rows) {
    for (std::size_t i = 0; i < rows.size(); ++i) AckRow(rows[i]);
  }
  // Acks `n` inputs without anchors (untracked rows or tuples a bolt held and lets go now): what
  // acking each would do, in one call.
  virtual void AckUntracked(std::size_t n) = 0;
  virtual void FailRow(const RowRef& row) = 0;
  // The task that sent the batch (a row's source task).
  virtual int BatchSource() const noexcept = 0;

 protected:
  ~BatchCollector() = default;
};

// A built-in bolt that takes a batch at a time: the runtime calls ExecuteBatch with each batch
// of rows instead of Execute per tuple (a batch that waited past the message timeout still goes
// tuple by tuple, to fail its tuples). ExecuteBatch must not throw; Execute stays for callers
// that hold Tuples. It is an OwningBolt too, so that one that keeps its inputs (a window) can
// take such a tuple owned; by default ExecuteOwned is Execute.
class BatchBolt : public OwningBolt {
 public:
  virtual void ExecuteBatch(const RowBatch& rows, BatchCollector& out) = 0;
  void ExecuteOwned(Tuple& input) override { Execute(input); }
};

// What the runtime does with an input it owns: ExecuteOwned when `bolt` keeps its inputs, else
// Execute (for tests and benchmarks that feed a bolt directly; the executor looks the kind up
// once).
inline void ExecuteOwned(Bolt& bolt, Tuple& input) {
  if (auto* owning = dynamic_cast<OwningBolt*>(&bolt)) {
    owning->ExecuteOwned(input);
  } else {
    bolt.Execute(input);
  }
}

}  // namespace tempest::topology

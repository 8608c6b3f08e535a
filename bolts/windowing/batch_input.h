#pragma once

#include <string>

#include "topology/bolt.h"
#include "topology/row_batch.h"
#include "topology/tuple.h"

namespace tempest::bolts {

// A row of a batch that a built-in bolt takes (topology::BatchBolt), with the collector it acks
// and forwards the row through: what the event-time input and the packed windows read where the
// per-tuple path reads a Tuple. Valid during ExecuteBatch only.
struct BatchInput {
  const topology::RowRef& row;
  topology::BatchCollector& out;

  const topology::StreamSchema* schema() const noexcept { return row.schema(); }
  int source_task() const noexcept { return out.BatchSource(); }
  // "source:stream[task] [v1, v2]", as Tuple::ToString has it (for messages).
  std::string ToString() const {
    topology::Tuple t;
    row.Load(source_task(), t);
    return t.ToString();
  }
};

}  // namespace tempest::bolts

#pragma once

// The public Tuple lives in tempest/tuple.h; this adds what the runtime does with tuples.
#include "tempest/tuple.h"

namespace tempest::topology {

// The runtime's access to what a tuple hides from user code: its ack metadata and, for decoders
// that refill tuples in place, its values and stream.
class TupleAccess {
 public:
  static const AckMeta& Ack(const Tuple& t) noexcept { return t.ack_; }
  static AckMeta& MutableAck(Tuple& t) noexcept { return t.ack_; }
  static Values& MutableValues(Tuple& t) noexcept { return t.values_; }
  // Points a reused tuple at another stream and source; the values and ack metadata are the
  // caller's to overwrite.
  static void Rebind(Tuple& t, const StreamSchema* schema, int source_task) noexcept {
    t.schema_ = schema;
    t.source_task_ = source_task;
  }
};

}  // namespace tempest::topology

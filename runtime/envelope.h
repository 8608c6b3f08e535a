#pragma once

#include <vector>

#include "topology/tuple.h"

namespace tempest::runtime {

// What one task hands another: a batch of tuples or an in-band control message. Both travel on
// the same FIFO channel, so control messages stay ordered with the data (DESIGN.md 2.2a).
struct Envelope {
  enum class Kind {
    kTuples,       // tuples: a batch, in emit order
    kEndOfStream,  // the sender will send nothing more
  };
  Kind kind = Kind::kTuples;
  int from_task = 0;
  std::vector<topology::Tuple> tuples;
};

}  // namespace tempest::runtime

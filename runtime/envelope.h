#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "topology/tuple.h"

namespace tempest::runtime {

// What one task hands another: a batch of tuples or an in-band control message. Both travel on
// the same FIFO channel, so control messages stay ordered with the data (DESIGN.md 2.2a).
struct Envelope {
  enum class Kind {
    kTuples,       // tuples: a batch, in emit order (from a task of this process)
    kFrame,        // frame: an encoded batch from another worker, decoded by the receiving task
    kEndOfStream,  // the sender will send nothing more
  };
  Kind kind = Kind::kTuples;
  int from_task = 0;
  std::vector<topology::Tuple> tuples;
  std::string frame;
  uint32_t frame_tuples = 0;  // how many tuples `frame` holds (its header says so)

  std::size_t TupleCount() const noexcept {
    return kind == Kind::kFrame ? frame_tuples : tuples.size();
  }
};

}  // namespace tempest::runtime

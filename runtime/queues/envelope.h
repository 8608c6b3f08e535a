#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "topology/row_batch.h"
#include "transport/ack_message.h"

namespace tempest::runtime {

// What one task hands another: a batch of tuples or an in-band control message. Both travel on
// the same FIFO channel, so control messages stay ordered with the data (docs/contracts.md,
// "Ordering").
struct Envelope {
  enum class Kind {
    kTuples,  // tuples: a batch, in emit order (from a task of this process)
    // frame: an encoded batch of tuples or ack messages from another worker, decoded by the
    // receiving task
    kFrame,
    kEndOfStream,  // the sender's input ended: flush (replayed tuples may still follow)
    kClose,        // the sender will send nothing more (it follows its end-of-stream)
    kAcks,         // acks: ack-protocol messages (from a task of this process)
  };
  Kind kind = Kind::kTuples;
  int from_task = 0;
  topology::RowBatch rows;
  std::string frame;
  uint32_t frame_tuples = 0;  // how many tuples or ack messages `frame` holds (its header says)
  std::vector<transport::AckMessage> acks;
  // When a queue took it (TaskQueue::Push); unset for what is delivered by call (chaining) or
  // drained from a network inbox.
  std::chrono::steady_clock::time_point queued_at{};

  // What the envelope weighs in a queue's capacity.
  std::size_t TupleCount() const noexcept {
    switch (kind) {
      case Kind::kFrame:
        return frame_tuples;
      case Kind::kAcks:
        return acks.size();
      case Kind::kTuples:
      case Kind::kEndOfStream:
      case Kind::kClose:
        break;
    }
    return rows.size();
  }
};

}  // namespace tempest::runtime

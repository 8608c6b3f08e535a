#pragma once

#include <cstdint>

namespace tempest::transport {

// One message of the ack protocol (Storm's acker streams), between spout or bolt tasks and acker
// tasks. Every message names the tuple tree by its root id.
struct AckMessage {
  enum class Type : uint8_t {
    kInit = 1,       // spout -> acker: a tree begins; value = XOR of the edge ids the spout sent
    kAck = 2,        // bolt -> acker: value = the acked tuple's edge id XOR its ack value
    kFail = 3,       // bolt -> acker: a tuple of the tree failed
    kReset = 4,      // bolt -> acker -> spout: restart the tree's message timeout
    kCompleted = 5,  // acker -> spout: every tuple of the tree was acked
    kFailed = 6,     // acker -> spout: a tuple of the tree failed
    // bolt -> spout, for a frame of the spout's tracked tuples from another worker (the spout
    // kept their anchors, runtime/acking/sent_frames.h): root and value = the frame's first
    // anchor; then kFrameRows messages follow for it
    kFrameAcked = 7,
    kFrameRows = 8,  // root = begin, value = end: tuples [begin, end) of that frame were acked
                     // without anchored children (their acks are their edge ids)
  };
  Type type = Type::kAck;
  uint64_t root = 0;
  uint64_t value = 0;
  friend bool operator==(const AckMessage&, const AckMessage&) = default;
};

}  // namespace tempest::transport

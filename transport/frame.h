#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topology/tuple.h"
#include "transport/stream_table.h"

namespace tempest::transport {

// Version of the frame layout (docs/wire-format.md). A receiver drops frames of other versions.
inline constexpr uint64_t kWireVersion = 1;

// What a frame carries. Control frames travel on the same channel as the tuples they follow.
enum class FrameKind : uint8_t {
  kTuples = 1,          // a batch of tuples from one task to one task
  kEndOfStream = 2,     // the sender will send nothing more on this channel
  kEndOfStreamAck = 3,  // the receiver confirms an end-of-stream (shutdown handshake)
  // 4: watermark, 5: checkpoint barrier — reserved for the windowing and checkpoint issues
};

// A decoded frame. Tuples borrow their schemas from the StreamTable.
struct Frame {
  FrameKind kind = FrameKind::kTuples;
  int from_task = 0;
  int to_task = 0;
  std::vector<topology::Tuple> tuples;  // kTuples only
};

// Appends one frame to `out`. Every tuple's schema must be in `streams`, else
// std::invalid_argument (a programming error, not a network one).
void EncodeFrame(FrameKind kind, int from_task, int to_task,
                 std::span<const topology::Tuple> tuples, const StreamTable& streams,
                 std::string& out);

enum class DecodeStatus {
  kOk,
  kMalformed,      // not msgpack, truncated, trailing bytes, or not the frame layout
  kWrongVersion,   // a frame layout of another version
  kUnknownStream,  // a stream number this topology does not have
};

// Decodes one frame. Never throws and never crashes on any input: a bad frame yields a status
// other than kOk and a one-line `error` saying what was wrong, and `out` is unspecified.
DecodeStatus DecodeFrame(std::string_view bytes, const StreamTable& streams, Frame& out,
                         std::string* error = nullptr);

}  // namespace tempest::transport

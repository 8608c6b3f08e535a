#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topology/row_batch.h"
#include "topology/splitmix.h"
#include "topology/tuple.h"
#include "transport/ack_message.h"
#include "transport/msgpack_writer.h"
#include "transport/stream_table.h"

namespace tempest::transport {

// Version of the frame layout (docs/wire-format.md). A receiver drops frames of other versions.
inline constexpr uint64_t kWireVersion = 1;

// The edge id of the tuple at `index` of a tuples frame with this edge key (docs/wire-format.md):
// a spout's tuples to another worker carry their root alone and the receiver derives the edge,
// 9 bytes less per tuple. splitmix64 over the key, as AckIds draws ids, so derived edges are as
// random as drawn ones and distinct within a frame; never 0.
constexpr uint64_t DerivedEdge(uint64_t edge_key, uint64_t index) noexcept {
  const uint64_t z = topology::SplitMix64Mix(edge_key + (index + 1) * topology::kSplitMix64Gamma);
  return z != 0 ? z : 1;
}

// What a frame carries. Control frames travel on the same channel as the tuples they follow.
enum class FrameKind : uint8_t {
  kTuples = 1,          // a batch of tuples from one task to one task
  kEndOfStream = 2,     // the sender will send nothing more on this channel
  kEndOfStreamAck = 3,  // the receiver confirms an end-of-stream (shutdown handshake)
  // 4: watermark, 5: checkpoint barrier — reserved for the windowing and checkpoint issues
  kCredit = 6,     // from_task's queue took `credit` more tuples from the receiving worker
  kHello = 7,      // connection check between workers: from/to are worker indices, not tasks
  kAcks = 8,       // a batch of ack-protocol messages (AckMessage) from one task to one task
  kClose = 9,      // after end-of-stream: the sender is done for good (no replay can follow)
  kCloseAck = 10,  // the receiver confirms a close (shutdown handshake)
};

// A decoded frame. Rows borrow their schemas from the StreamTable.
struct Frame {
  FrameKind kind = FrameKind::kTuples;
  int from_task = 0;
  int to_task = 0;
  topology::RowBatch rows;       // kTuples only
  std::vector<AckMessage> acks;  // kAcks only
  uint64_t credit = 0;           // kCredit only
};

// What a receiver needs to route a frame without decoding its tuples.
struct FrameHeader {
  FrameKind kind = FrameKind::kTuples;
  int from_task = 0;
  int to_task = 0;
  // tuples in a kTuples frame; messages in a kAcks frame; the credit of a kCredit frame; else 0
  uint64_t count = 0;
  uint64_t edge_key = 0;  // a kTuples frame's edge key (DerivedEdge); 0: none
};

// Appends one frame to `out`. Every tuple's schema must be in `streams`, else
// std::invalid_argument (a programming error, not a network one).
void EncodeFrame(FrameKind kind, int from_task, int to_task,
                 std::span<const topology::Tuple> tuples, const StreamTable& streams,
                 std::string& out);

// Builds one kTuples frame tuple by tuple, straight from the emitted values: the sender's path
// to another worker makes no Tuple objects. The tuple count is patched in by Finish(). Reusable:
// Begin() keeps the buffer's capacity. Single-threaded.
class FrameBuilder {
 public:
  // With an edge key (non-zero), a tuple whose one anchor's edge is DerivedEdge(edge_key, its
  // index in the frame) is written with its root alone.
  void Begin(int from_task, int to_task, uint64_t edge_key = 0);
  void Add(int stream, const topology::Values& values,
           std::span<const topology::AckMeta::Anchor> anchors = {});
  // As Add, with the fields of a row of a batch, encoded from its cells: the same bytes.
  void AddRow(int stream, const topology::RowRef& row,
              std::span<const topology::AckMeta::Anchor> anchors = {});
  // The finished frame; valid until the next Begin().
  std::string_view Finish();
  uint32_t count() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return w_.size(); }

 private:
  void WriteCell(const topology::RowRef& row, std::size_t field);
  void WriteAnchors(std::span<const topology::AckMeta::Anchor> anchors);

  MsgpackWriter w_;
  std::size_t count_at_ = 0;
  uint32_t count_ = 0;
  uint64_t edge_key_ = 0;
};

// Appends a kAcks frame carrying `acks` (at least one).
void EncodeAckFrame(int from_task, int to_task, std::span<const AckMessage> acks, std::string& out);
// The same frame in `w`, cleared first: a sender that keeps its writer encodes frame after frame
// into one buffer, without growing and copying it each time.
void EncodeAckFrame(int from_task, int to_task, std::span<const AckMessage> acks, MsgpackWriter& w);
// Appends a frame without tuples (end-of-stream, close, their acks, hello).
void EncodeControlFrame(FrameKind kind, int from_task, int to_task, std::string& out);
// Appends a credit frame: `task` has room for `tuples` more tuples from the receiving worker.
void EncodeCreditFrame(int task, uint64_t tuples, std::string& out);

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
// Reads only the version, kind, tasks and the body's size (cheap: a few bytes), for routing. A
// kOk here does not mean the tuples will decode; DecodeFrame checks the rest.
DecodeStatus PeekFrameHeader(std::string_view bytes, FrameHeader& out,
                             std::string* error = nullptr);

}  // namespace tempest::transport

#include "transport/frame.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

#include "transport/msgpack_reader.h"
#include "transport/msgpack_writer.h"

namespace tempest::transport {
namespace {

using topology::Value;

void WriteHeader(MsgpackWriter& w, FrameKind kind, int from_task, int to_task,
                 uint64_t edge_key = 0) {
  w.ArrayHeader(edge_key != 0 ? 6 : 5);
  w.Uint(kWireVersion);
  w.Uint(static_cast<uint8_t>(kind));
  w.Int(from_task);
  w.Int(to_task);
  if (edge_key != 0) w.Uint(edge_key);
}

}  // namespace

void FrameBuilder::Begin(int from_task, int to_task, uint64_t edge_key) {
  w_.Clear();
  count_ = 0;
  edge_key_ = edge_key;
  WriteHeader(w_, FrameKind::kTuples, from_task, to_task, edge_key);
  // array32 with the count left open: a valid (if not minimal) msgpack header.
  const unsigned char open[5] = {0xdd, 0, 0, 0, 0};
  w_.Raw(open, sizeof open);
  count_at_ = w_.size() - 4;
}

// Run per field and per tuple sent: defined here, before Add and AddRow, to be inlined there.
inline void FrameBuilder::WriteCell(const topology::RowRef& row, std::size_t field) {
  using topology::CellTag;
  const topology::Cell& c = row.cell(field);
  switch (c.tag) {
    case CellTag::kNull:
      w_.Nil();
      return;
    case CellTag::kFalse:
    case CellTag::kTrue:
      w_.Bool(c.tag == CellTag::kTrue);
      return;
    case CellTag::kInt:
      w_.Int(c.Int());
      return;
    case CellTag::kDouble:
      w_.Double(c.Double());
      return;
    case CellTag::kShortString:
    case CellTag::kString:
      w_.Str(row.Text(field));
      return;
    case CellTag::kShortBytes:
    case CellTag::kBytes:
      w_.Bin(row.Text(field));
      return;
    case CellTag::kValue:
      w_.Value(*row.SideValue(field));
      return;
  }
}

// Root and edge ids are random 64-bit numbers that nearly always need the 9-byte form anyway:
// always written in it (readers take any uint form), without the size cascade per id.
inline void FrameBuilder::WriteAnchors(std::span<const topology::AckMeta::Anchor> anchors) {
  if (edge_key_ != 0 && anchors.size() == 1 && anchors[0].edge == DerivedEdge(edge_key_, count_)) {
    char* p = w_.Extend(10);
    p[0] = static_cast<char>(0x91);  // fixarray of 1: the root alone
    MsgpackWriter::PutUint64(p + 1, anchors[0].root);
    return;
  }
  w_.ArrayHeader(static_cast<uint32_t>(2 * anchors.size()));
  if (anchors.empty()) return;
  char* p = w_.Extend(18 * anchors.size());
  for (const auto& a : anchors) {
    MsgpackWriter::PutUint64(p, a.root);
    MsgpackWriter::PutUint64(p + 9, a.edge);
    p += 18;
  }
}

void FrameBuilder::Add(int stream, const topology::Values& values,
                       std::span<const topology::AckMeta::Anchor> anchors) {
  w_.ArrayHeader(3);
  w_.Uint(static_cast<uint32_t>(stream));
  w_.ArrayHeader(static_cast<uint32_t>(values.size()));
  for (const Value& v : values) w_.Value(v);
  WriteAnchors(anchors);
  ++count_;
}

void FrameBuilder::AddRow(int stream, const topology::RowRef& row,
                          std::span<const topology::AckMeta::Anchor> anchors) {
  w_.ArrayHeader(3);
  w_.Uint(static_cast<uint32_t>(stream));
  w_.ArrayHeader(static_cast<uint32_t>(row.size()));
  for (std::size_t i = 0; i < row.size(); ++i) WriteCell(row, i);
  WriteAnchors(anchors);
  ++count_;
}

std::string_view FrameBuilder::Finish() {
  char* count = w_.at(count_at_);
  for (int i = 0; i < 4; ++i) count[i] = static_cast<char>((count_ >> (24 - 8 * i)) & 0xff);
  return w_.view();
}

void EncodeFrame(FrameKind kind, int from_task, int to_task,
                 std::span<const topology::Tuple> tuples, const StreamTable& streams,
                 std::string& out) {
  if (kind != FrameKind::kTuples) {
    if (!tuples.empty()) throw std::invalid_argument("a control frame carries no tuples");
    EncodeControlFrame(kind, from_task, to_task, out);
    return;
  }
  FrameBuilder builder;
  builder.Begin(from_task, to_task);
  const topology::StreamSchema* last_schema = nullptr;
  int last_index = -1;
  for (const topology::Tuple& t : tuples) {
    if (t.schema() != last_schema) {
      last_schema = t.schema();
      last_index = streams.IndexOf(last_schema);
      if (last_index < 0) {
        throw std::invalid_argument(
            fmt::format("tuple of stream '{}' of '{}' is not of this topology",
                        t.GetSourceStreamId(), t.GetSourceComponent()));
      }
    }
    const topology::AckMeta& meta = topology::TupleAccess::Ack(t);
    builder.Add(last_index, t.GetValues(), {meta.anchors.data(), meta.anchors.size()});
  }
  out.append(builder.Finish());
}

void EncodeControlFrame(FrameKind kind, int from_task, int to_task, std::string& out) {
  MsgpackWriter w;
  WriteHeader(w, kind, from_task, to_task);
  w.ArrayHeader(0);
  out.append(w.view());
}

void EncodeAckFrame(int from_task, int to_task, std::span<const AckMessage> acks,
                    std::string& out) {
  MsgpackWriter w;
  EncodeAckFrame(from_task, to_task, acks, w);
  out.append(w.view());
}

void EncodeAckFrame(int from_task, int to_task, std::span<const AckMessage> acks,
                    MsgpackWriter& w) {
  w.Clear();
  WriteHeader(w, FrameKind::kAcks, from_task, to_task);
  w.ArrayHeader(static_cast<uint32_t>(3 * acks.size()));
  // Fixed-size records, written in one pass: a positive fixint type, then root and value as
  // uint 64 (random ids mostly need all 8 bytes anyway).
  constexpr std::size_t kRecord = 1 + 9 + 9;
  char* p = w.Extend(kRecord * acks.size());
  for (const AckMessage& m : acks) {
    p[0] = static_cast<char>(m.type);
    MsgpackWriter::PutUint64(p + 1, m.root);
    MsgpackWriter::PutUint64(p + 10, m.value);
    p += kRecord;
  }
}

void EncodeCreditFrame(int task, uint64_t tuples, std::string& out) {
  MsgpackWriter w;
  WriteHeader(w, FrameKind::kCredit, task, 0);
  w.Uint(tuples);
  out.append(w.view());
}

namespace {

bool KnownKind(uint64_t kind) { return (kind >= 1 && kind <= 3) || (kind >= 6 && kind <= 10); }

// Reads everything up to and including the body's header into `h`.
DecodeStatus ReadHeader(MsgpackReader& r, FrameHeader& h) {
  uint32_t parts = 0;
  if (!r.ReadArrayHeader(parts, "the frame")) return DecodeStatus::kMalformed;
  if (parts == 0) {
    r.Fail("the frame is an empty array");
    return DecodeStatus::kMalformed;
  }
  uint64_t version = 0;
  if (!r.ReadUint(version, "the version")) return DecodeStatus::kMalformed;
  if (version != kWireVersion) {
    r.Fail(fmt::format("frame version {}, expected {}", version, kWireVersion));
    return DecodeStatus::kWrongVersion;
  }
  if (parts != 5 && parts != 6) {
    r.Fail(fmt::format("the frame has {} parts, expected 5 (6 with an edge key)", parts));
    return DecodeStatus::kMalformed;
  }
  uint64_t kind = 0;
  int64_t from = 0, to = 0;
  if (!r.ReadUint(kind, "the kind")) return DecodeStatus::kMalformed;
  if (!KnownKind(kind)) {
    r.Fail(fmt::format("unknown frame kind {}", kind));
    return DecodeStatus::kMalformed;
  }
  if (!r.ReadInt(from, "the sender task") || !r.ReadInt(to, "the receiver task")) {
    return DecodeStatus::kMalformed;
  }
  if (from < 0 || from > std::numeric_limits<int>::max() || to < 0 ||
      to > std::numeric_limits<int>::max()) {
    r.Fail("a task id is out of range");
    return DecodeStatus::kMalformed;
  }
  h.kind = static_cast<FrameKind>(kind);
  h.from_task = static_cast<int>(from);
  h.to_task = static_cast<int>(to);
  h.count = 0;
  h.edge_key = 0;
  if (parts == 6) {
    if (h.kind != FrameKind::kTuples) {
      r.Fail("only a tuples frame has an edge key");
      return DecodeStatus::kMalformed;
    }
    if (!r.ReadUint(h.edge_key, "the edge key")) return DecodeStatus::kMalformed;
    if (h.edge_key == 0) {
      r.Fail("the edge key is 0");
      return DecodeStatus::kMalformed;
    }
  }
  if (h.kind == FrameKind::kCredit) {
    if (!r.ReadUint(h.count, "the credit")) return DecodeStatus::kMalformed;
    return DecodeStatus::kOk;
  }
  uint32_t n = 0;
  if (!r.ReadArrayHeader(n, "the tuples")) return DecodeStatus::kMalformed;
  if (h.kind == FrameKind::kAcks) {
    if (n == 0 || n % 3 != 0) {
      r.Fail("an ack frame's body is not (type, root, value) triples");
      return DecodeStatus::kMalformed;
    }
    h.count = n / 3;
    return DecodeStatus::kOk;
  }
  if (h.kind != FrameKind::kTuples && n != 0) {
    r.Fail("a control frame carries tuples");
    return DecodeStatus::kMalformed;
  }
  h.count = n;
  return DecodeStatus::kOk;
}

DecodeStatus Finish(MsgpackReader& r, DecodeStatus status, std::string* error) {
  if (status == DecodeStatus::kOk && r.remaining() != 0) {
    r.Fail(fmt::format("{} trailing bytes after the frame", r.remaining()));
    status = DecodeStatus::kMalformed;
  }
  if (status != DecodeStatus::kOk && error != nullptr) *error = r.error();
  return status;
}

// Refills out.rows: the batch keeps its buffers, and strings are copied straight from the frame
// into its arena, so a receiver decoding frame after frame allocates nothing in the steady state.
DecodeStatus ReadRows(MsgpackReader& r, uint64_t n, uint64_t edge_key, const StreamTable& streams,
                      Frame& out) {
  out.rows.Clear();
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t parts = 0;
    if (!r.ReadArrayHeader(parts, "a tuple")) return DecodeStatus::kMalformed;
    if (parts != 3) {
      r.Fail("a tuple does not have 3 parts");
      return DecodeStatus::kMalformed;
    }
    uint64_t stream = 0;
    if (!r.ReadUint(stream, "a tuple's stream")) return DecodeStatus::kMalformed;
    const topology::StreamSchema* schema = streams.At(stream);
    if (schema == nullptr) {
      r.Fail(fmt::format("stream number {} does not exist (the topology has {})", stream,
                         streams.size()));
      return DecodeStatus::kUnknownStream;
    }
    uint32_t values = 0;
    if (!r.ReadArrayHeader(values, "a tuple's values")) return DecodeStatus::kMalformed;
    if (values != schema->fields->size()) {
      r.Fail(fmt::format("a tuple of stream '{}' of '{}' has {} values, expected {}",
                         schema->stream, schema->component, values, schema->fields->size()));
      return DecodeStatus::kMalformed;
    }
    for (uint32_t v = 0; v < values; ++v) {
      if (!r.ReadCell(out.rows)) return DecodeStatus::kMalformed;
    }
    uint32_t anchors = 0;
    if (!r.ReadArrayHeader(anchors, "a tuple's anchors")) return DecodeStatus::kMalformed;
    if (anchors == 1 && edge_key != 0) {  // the root alone: its edge is derived
      topology::AckMeta::Anchor anchor;
      if (!r.ReadUint(anchor.root, "an anchor root")) return DecodeStatus::kMalformed;
      anchor.edge = DerivedEdge(edge_key, i);
      out.rows.AddAnchor(anchor);
      out.rows.EndRow(schema, values, 1);
      continue;
    }
    if (anchors % 2 != 0) {
      r.Fail("a tuple's anchors are not (root, edge) pairs");
      return DecodeStatus::kMalformed;
    }
    for (uint32_t a = 0; a < anchors / 2; ++a) {
      topology::AckMeta::Anchor anchor;
      if (!r.ReadUint(anchor.root, "an anchor root") ||
          !r.ReadUint(anchor.edge, "an anchor edge")) {
        return DecodeStatus::kMalformed;
      }
      out.rows.AddAnchor(anchor);
    }
    out.rows.EndRow(schema, values, anchors / 2);
  }
  return DecodeStatus::kOk;
}

DecodeStatus ReadAcks(MsgpackReader& r, uint64_t n, Frame& out) {
  out.acks.resize(n);
  for (AckMessage& m : out.acks) {
    uint64_t type = 0;
    if (!r.ReadUint(type, "an ack message's type")) return DecodeStatus::kMalformed;
    if (type < 1 || type > 8) {
      r.Fail(fmt::format("unknown ack message type {}", type));
      return DecodeStatus::kMalformed;
    }
    m.type = static_cast<AckMessage::Type>(type);
    if (!r.ReadUint(m.root, "an ack message's root") ||
        !r.ReadUint(m.value, "an ack message's value")) {
      return DecodeStatus::kMalformed;
    }
  }
  return DecodeStatus::kOk;
}

}  // namespace

DecodeStatus DecodeFrame(std::string_view bytes, const StreamTable& streams, Frame& out,
                         std::string* error) {
  MsgpackReader r(bytes);
  FrameHeader h;
  DecodeStatus status = ReadHeader(r, h);
  if (status == DecodeStatus::kOk) {
    out.kind = h.kind;
    out.from_task = h.from_task;
    out.to_task = h.to_task;
    out.credit = h.kind == FrameKind::kCredit ? h.count : 0;
    out.rows.Clear();
    out.acks.clear();
    if (h.kind == FrameKind::kTuples) {
      status = ReadRows(r, h.count, h.edge_key, streams, out);
    } else if (h.kind == FrameKind::kAcks) {
      status = ReadAcks(r, h.count, out);
    }
  }
  return Finish(r, status, error);
}

DecodeStatus PeekFrameHeader(std::string_view bytes, FrameHeader& out, std::string* error) {
  MsgpackReader r(bytes);
  const DecodeStatus status = ReadHeader(r, out);
  if (status != DecodeStatus::kOk && error != nullptr) *error = r.error();
  return status;
}

}  // namespace tempest::transport

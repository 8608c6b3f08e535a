#include "transport/frame.h"

#include <fmt/format.h>

#include <bit>
#include <limits>
#include <msgpack.hpp>
#include <stdexcept>

#include "transport/msgpack_reader.h"

namespace tempest::transport {
namespace {

using topology::Value;
using topology::ValueType;

// msgpack's packer writes into any type with write(const char*, size_t).
struct StringSink {
  std::string* out;
  void write(const char* data, std::size_t size) { out->append(data, size); }
};
using Packer = msgpack::packer<StringSink>;

void PackValue(Packer& pk, const Value& v) {
  switch (v.type()) {
    case ValueType::kNull:
      pk.pack_nil();
      return;
    case ValueType::kBool:
      v.AsBool() ? pk.pack_true() : pk.pack_false();
      return;
    case ValueType::kInt:
      pk.pack_int64(*v.IfInt());
      return;
    case ValueType::kDouble: {
      // Always float64: msgpack-c's pack_double writes an integral double (1000.0, -0.0) as an
      // integer, which would come back as another type.
      const uint64_t bits = std::bit_cast<uint64_t>(*v.IfDouble());
      char buf[9];
      buf[0] = static_cast<char>(0xcb);
      for (int i = 0; i < 8; ++i) buf[1 + i] = static_cast<char>((bits >> (56 - 8 * i)) & 0xff);
      pk.pack_str_body(buf, sizeof buf);  // raw bytes, no header
      return;
    }
    case ValueType::kString: {
      const std::string& s = *v.IfString();
      pk.pack_str(static_cast<uint32_t>(s.size()));
      pk.pack_str_body(s.data(), static_cast<uint32_t>(s.size()));
      return;
    }
    case ValueType::kBytes: {
      const std::string& b = v.AsBytes().data;
      pk.pack_bin(static_cast<uint32_t>(b.size()));
      pk.pack_bin_body(b.data(), static_cast<uint32_t>(b.size()));
      return;
    }
    case ValueType::kList:
      pk.pack_array(static_cast<uint32_t>(v.AsList().size()));
      for (const Value& e : v.AsList()) PackValue(pk, e);
      return;
    case ValueType::kMap:
      pk.pack_map(static_cast<uint32_t>(v.AsMap().size()));
      for (const auto& [k, e] : v.AsMap()) {
        PackValue(pk, k);
        PackValue(pk, e);
      }
      return;
  }
}

void PackHeader(Packer& pk, FrameKind kind, int from_task, int to_task) {
  pk.pack_array(5);
  pk.pack_uint64(kWireVersion);
  pk.pack_uint8(static_cast<uint8_t>(kind));
  pk.pack_int32(from_task);
  pk.pack_int32(to_task);
}

}  // namespace

void FrameBuilder::Begin(int from_task, int to_task) {
  bytes_.clear();
  count_ = 0;
  StringSink sink{&bytes_};
  Packer pk(sink);
  PackHeader(pk, FrameKind::kTuples, from_task, to_task);
  // array32 with the count left open: a valid (if not minimal) msgpack header.
  bytes_.push_back(static_cast<char>(0xdd));
  count_at_ = bytes_.size();
  bytes_.append(4, '\0');
}

void FrameBuilder::Add(int stream, const topology::Values& values,
                       std::span<const topology::AckMeta::Anchor> anchors) {
  StringSink sink{&bytes_};
  Packer pk(sink);
  pk.pack_array(3);
  pk.pack_uint32(static_cast<uint32_t>(stream));
  pk.pack_array(static_cast<uint32_t>(values.size()));
  for (const Value& v : values) PackValue(pk, v);
  pk.pack_array(static_cast<uint32_t>(2 * anchors.size()));
  for (const auto& a : anchors) {
    pk.pack_uint64(a.root);
    pk.pack_uint64(a.edge);
  }
  ++count_;
}

std::string_view FrameBuilder::Finish() {
  for (int i = 0; i < 4; ++i) {
    bytes_[count_at_ + i] = static_cast<char>((count_ >> (24 - 8 * i)) & 0xff);
  }
  return bytes_;
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
    builder.Add(last_index, t.GetValues(), t.ack().anchors);
  }
  out.append(builder.Finish());
}

void EncodeControlFrame(FrameKind kind, int from_task, int to_task, std::string& out) {
  StringSink sink{&out};
  Packer pk(sink);
  PackHeader(pk, kind, from_task, to_task);
  pk.pack_array(0);
}

void EncodeCreditFrame(int task, uint64_t tuples, std::string& out) {
  StringSink sink{&out};
  Packer pk(sink);
  PackHeader(pk, FrameKind::kCredit, task, 0);
  pk.pack_uint64(tuples);
}

namespace {

bool KnownKind(uint64_t kind) { return (kind >= 1 && kind <= 3) || kind == 6 || kind == 7; }

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
  if (parts != 5) {
    r.Fail(fmt::format("the frame has {} parts, expected 5", parts));
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
  if (h.kind == FrameKind::kCredit) {
    if (!r.ReadUint(h.count, "the credit")) return DecodeStatus::kMalformed;
    return DecodeStatus::kOk;
  }
  uint32_t n = 0;
  if (!r.ReadArrayHeader(n, "the tuples")) return DecodeStatus::kMalformed;
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

// Refills out.tuples in place: the tuples (and their strings' buffers) of the previous frame are
// reused, so a receiver decoding frame after frame allocates nothing in the steady state.
DecodeStatus ReadTuples(MsgpackReader& r, uint64_t n, const StreamTable& streams, Frame& out) {
  out.tuples.resize(n);
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
    topology::Tuple& tuple = out.tuples[i];
    tuple.Rebind(schema, out.from_task);
    topology::Values& vals = tuple.MutableValues();
    vals.resize(values);
    for (topology::Value& v : vals) {
      if (!r.ReadValue(v)) return DecodeStatus::kMalformed;
    }
    uint32_t anchors = 0;
    if (!r.ReadArrayHeader(anchors, "a tuple's anchors")) return DecodeStatus::kMalformed;
    if (anchors % 2 != 0) {
      r.Fail("a tuple's anchors are not (root, edge) pairs");
      return DecodeStatus::kMalformed;
    }
    std::vector<topology::AckMeta::Anchor>& list = tuple.mutable_ack().anchors;
    list.resize(anchors / 2);
    for (topology::AckMeta::Anchor& a : list) {
      if (!r.ReadUint(a.root, "an anchor root") || !r.ReadUint(a.edge, "an anchor edge")) {
        return DecodeStatus::kMalformed;
      }
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
    if (h.kind == FrameKind::kTuples) {
      status = ReadTuples(r, h.count, streams, out);
    } else {
      out.tuples.clear();
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

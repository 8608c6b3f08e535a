#include "transport/frame.h"

#include <fmt/format.h>

#include <limits>
#include <msgpack.hpp>
#include <stdexcept>

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
    case ValueType::kDouble:
      pk.pack_double(*v.IfDouble());
      return;
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

// Decoding walks msgpack's object tree; every check returns false with a message instead of
// throwing, so a bad frame costs no exception once msgpack has parsed it.
class Reader {
 public:
  explicit Reader(std::string* error) : error_(error) {}

  bool Fail(const std::string& message) {
    if (error_ != nullptr) *error_ = message;
    return false;
  }

  bool Uint(const msgpack::object& o, uint64_t& out, const char* what) {
    if (o.type != msgpack::type::POSITIVE_INTEGER) {
      return Fail(fmt::format("{} is not an unsigned integer", what));
    }
    out = o.via.u64;
    return true;
  }

  bool Int(const msgpack::object& o, int64_t& out, const char* what) {
    if (o.type == msgpack::type::NEGATIVE_INTEGER) {
      out = o.via.i64;
      return true;
    }
    if (o.type == msgpack::type::POSITIVE_INTEGER &&
        o.via.u64 <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      out = static_cast<int64_t>(o.via.u64);
      return true;
    }
    return Fail(fmt::format("{} is not a 64-bit integer", what));
  }

  bool Array(const msgpack::object& o, const char* what) {
    if (o.type != msgpack::type::ARRAY) return Fail(fmt::format("{} is not an array", what));
    return true;
  }

  bool ToValue(const msgpack::object& o, Value& out) {
    switch (o.type) {
      case msgpack::type::NIL:
        out = Value();
        return true;
      case msgpack::type::BOOLEAN:
        out = Value(o.via.boolean);
        return true;
      case msgpack::type::POSITIVE_INTEGER:
      case msgpack::type::NEGATIVE_INTEGER: {
        int64_t i = 0;
        if (!Int(o, i, "an integer value")) return false;
        out = Value(i);
        return true;
      }
      case msgpack::type::FLOAT32:
      case msgpack::type::FLOAT64:
        out = Value(o.via.f64);
        return true;
      case msgpack::type::STR:
        out = Value(std::string_view(o.via.str.ptr, o.via.str.size));
        return true;
      case msgpack::type::BIN:
        out = Value(topology::Bytes{std::string(o.via.bin.ptr, o.via.bin.size)});
        return true;
      case msgpack::type::ARRAY: {
        topology::List list;
        list.resize(o.via.array.size);
        for (uint32_t i = 0; i < o.via.array.size; ++i) {
          if (!ToValue(o.via.array.ptr[i], list[i])) return false;
        }
        out = Value(std::move(list));
        return true;
      }
      case msgpack::type::MAP: {
        topology::Map map;
        map.resize(o.via.map.size);
        for (uint32_t i = 0; i < o.via.map.size; ++i) {
          if (!ToValue(o.via.map.ptr[i].key, map[i].first) ||
              !ToValue(o.via.map.ptr[i].val, map[i].second)) {
            return false;
          }
        }
        out = Value(std::move(map));
        return true;
      }
      case msgpack::type::EXT:
        break;
    }
    return Fail("a value is a msgpack extension type, which tuples never hold");
  }

 private:
  std::string* error_;
};

}  // namespace

void EncodeFrame(FrameKind kind, int from_task, int to_task,
                 std::span<const topology::Tuple> tuples, const StreamTable& streams,
                 std::string& out) {
  StringSink sink{&out};
  Packer pk(sink);
  pk.pack_array(5);
  pk.pack_uint64(kWireVersion);
  pk.pack_uint8(static_cast<uint8_t>(kind));
  pk.pack_int32(from_task);
  pk.pack_int32(to_task);
  pk.pack_array(static_cast<uint32_t>(tuples.size()));
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
    pk.pack_array(3);
    pk.pack_uint32(static_cast<uint32_t>(last_index));
    pk.pack_array(static_cast<uint32_t>(t.size()));
    for (const Value& v : t.GetValues()) PackValue(pk, v);
    const auto& anchors = t.ack().anchors;
    pk.pack_array(static_cast<uint32_t>(2 * anchors.size()));
    for (const auto& a : anchors) {
      pk.pack_uint64(a.root);
      pk.pack_uint64(a.edge);
    }
  }
}

DecodeStatus DecodeFrame(std::string_view bytes, const StreamTable& streams, Frame& out,
                         std::string* error) {
  Reader r(error);
  msgpack::object_handle handle;
  try {
    // Limits keep a forged length (an array "of 4 billion elements") from allocating more than
    // the frame could possibly hold.
    const std::size_t n = bytes.size();
    const msgpack::unpack_limit limit(n, n / 2, n, n, n, 64);
    std::size_t offset = 0;
    // Strings and binaries are referenced in `bytes`, not copied into msgpack's zone: the
    // tuples copy them once, into their Values.
    const auto reference = [](msgpack::type::object_type, std::size_t, void*) { return true; };
    handle = msgpack::unpack(bytes.data(), n, offset, reference, nullptr, limit);
    if (offset != n) {
      r.Fail(fmt::format("{} trailing bytes after the frame", n - offset));
      return DecodeStatus::kMalformed;
    }
  } catch (const std::exception& e) {
    r.Fail(fmt::format("not a msgpack frame: {}", e.what()));
    return DecodeStatus::kMalformed;
  }
  const msgpack::object& root = handle.get();
  if (!r.Array(root, "the frame") || root.via.array.size < 1) {
    if (root.type == msgpack::type::ARRAY) r.Fail("the frame is an empty array");
    return DecodeStatus::kMalformed;
  }
  const msgpack::object* f = root.via.array.ptr;
  uint64_t version = 0;
  if (!r.Uint(f[0], version, "the version")) return DecodeStatus::kMalformed;
  if (version != kWireVersion) {
    r.Fail(fmt::format("frame version {}, expected {}", version, kWireVersion));
    return DecodeStatus::kWrongVersion;
  }
  if (root.via.array.size != 5) {
    r.Fail(fmt::format("the frame has {} parts, expected 5", root.via.array.size));
    return DecodeStatus::kMalformed;
  }
  uint64_t kind = 0;
  int64_t from = 0, to = 0;
  if (!r.Uint(f[1], kind, "the kind") || !r.Int(f[2], from, "the sender task") ||
      !r.Int(f[3], to, "the receiver task") || !r.Array(f[4], "the tuples")) {
    return DecodeStatus::kMalformed;
  }
  if (kind < 1 || kind > 3) {
    r.Fail(fmt::format("unknown frame kind {}", kind));
    return DecodeStatus::kMalformed;
  }
  if (from < 0 || from > std::numeric_limits<int>::max() || to < 0 ||
      to > std::numeric_limits<int>::max()) {
    r.Fail("a task id is out of range");
    return DecodeStatus::kMalformed;
  }
  out.kind = static_cast<FrameKind>(kind);
  out.from_task = static_cast<int>(from);
  out.to_task = static_cast<int>(to);
  out.tuples.clear();
  const msgpack::object_array& tuples = f[4].via.array;
  out.tuples.reserve(tuples.size);
  for (uint32_t i = 0; i < tuples.size; ++i) {
    const msgpack::object& t = tuples.ptr[i];
    if (!r.Array(t, "a tuple") || t.via.array.size != 3) {
      if (t.type == msgpack::type::ARRAY) r.Fail("a tuple does not have 3 parts");
      return DecodeStatus::kMalformed;
    }
    uint64_t stream = 0;
    if (!r.Uint(t.via.array.ptr[0], stream, "a tuple's stream") ||
        !r.Array(t.via.array.ptr[1], "a tuple's values") ||
        !r.Array(t.via.array.ptr[2], "a tuple's anchors")) {
      return DecodeStatus::kMalformed;
    }
    const topology::StreamSchema* schema = streams.At(stream);
    if (schema == nullptr) {
      r.Fail(fmt::format("stream number {} does not exist (the topology has {})", stream,
                         streams.size()));
      return DecodeStatus::kUnknownStream;
    }
    const msgpack::object_array& values = t.via.array.ptr[1].via.array;
    if (values.size != schema->fields->size()) {
      r.Fail(fmt::format("a tuple of stream '{}' of '{}' has {} values, expected {}",
                         schema->stream, schema->component, values.size, schema->fields->size()));
      return DecodeStatus::kMalformed;
    }
    // Built in place: the tuple is constructed once, in the output vector.
    topology::Tuple& tuple = out.tuples.emplace_back(schema, out.from_task, topology::Values());
    topology::Values& vals = tuple.MutableValues();
    vals.resize(values.size);
    for (uint32_t k = 0; k < values.size; ++k) {
      if (!r.ToValue(values.ptr[k], vals[k])) return DecodeStatus::kMalformed;
    }
    const msgpack::object_array& anchors = t.via.array.ptr[2].via.array;
    if (anchors.size % 2 != 0) {
      r.Fail("a tuple's anchors are not (root, edge) pairs");
      return DecodeStatus::kMalformed;
    }
    for (uint32_t k = 0; k < anchors.size; k += 2) {
      topology::AckMeta::Anchor a;
      if (!r.Uint(anchors.ptr[k], a.root, "an anchor root") ||
          !r.Uint(anchors.ptr[k + 1], a.edge, "an anchor edge")) {
        return DecodeStatus::kMalformed;
      }
      tuple.mutable_ack().anchors.push_back(a);
    }
  }
  if (out.kind != FrameKind::kTuples && !out.tuples.empty()) {
    r.Fail("a control frame carries tuples");
    return DecodeStatus::kMalformed;
  }
  return DecodeStatus::kOk;
}

}  // namespace tempest::transport

#include "transport/control_message.h"

#include <fmt/format.h>

#include <limits>
#include <msgpack.hpp>

#include "transport/msgpack_reader.h"

namespace tempest::transport {
namespace {

struct StringSink {
  std::string* out;
  void write(const char* data, std::size_t size) { out->append(data, size); }
};

// Version 5: task counters carry their latest error and its time, the execute latency, the
// queue's fill, the task's own metrics and its drops by cause (parts 15 to 21).
constexpr uint64_t kControlVersion = 5;
constexpr uint32_t kParts = 13;
constexpr uint32_t kCounterParts = 21;
constexpr uint32_t kMetricParts = 4;  // name, kind, value, buckets

void PackString(msgpack::packer<StringSink>& pk, const std::string& s) {
  pk.pack_str(static_cast<uint32_t>(s.size()));
  pk.pack_str_body(s.data(), static_cast<uint32_t>(s.size()));
}

void PackUints(msgpack::packer<StringSink>& pk, const std::vector<uint64_t>& values) {
  pk.pack_array(static_cast<uint32_t>(values.size()));
  for (uint64_t v : values) pk.pack_uint64(v);
}

bool ReadUints(MsgpackReader& r, std::vector<uint64_t>& out, const char* what) {
  uint32_t n = 0;
  if (!r.ReadArrayHeader(n, what)) return false;
  out.assign(n, 0);
  for (uint64_t& v : out) {
    if (!r.ReadUint(v, what)) return false;
  }
  return true;
}

// (name, value) pairs: a task's gauges, its drops by cause.
void PackNamed(msgpack::packer<StringSink>& pk,
               const std::vector<std::pair<std::string, uint64_t>>& list) {
  pk.pack_array(static_cast<uint32_t>(list.size()));
  for (const auto& [name, value] : list) {
    pk.pack_array(2);
    PackString(pk, name);
    pk.pack_uint64(value);
  }
}

// What a list's errors call its parts ("a gauge name is not a string"): fixed texts, so a
// heartbeat's decoding formats nothing unless it fails.
struct NamedListWords {
  const char* list;
  const char* entry;
  const char* name;
  const char* value;
};
constexpr NamedListWords kGaugeWords{"the gauge list", "a gauge", "a gauge name", "a gauge value"};
constexpr NamedListWords kCauseWords{"the drop cause list", "a drop cause", "a drop cause name",
                                     "a drop cause value"};

bool ReadNamed(MsgpackReader& r, std::vector<std::pair<std::string, uint64_t>>& out,
               const NamedListWords& words) {
  uint32_t n = 0;
  if (!r.ReadArrayHeader(n, words.list)) return false;
  out.assign(n, {});
  for (auto& [name, value] : out) {
    uint32_t pair = 0;
    if (!r.ReadArrayHeader(pair, words.entry)) return false;
    if (pair != 2) return r.Fail(fmt::format("{} is not a (name, value) pair", words.entry));
    if (!r.ReadString(name, words.name) || !r.ReadUint(value, words.value)) return false;
  }
  return true;
}

bool ReadMetric(MsgpackReader& r, topology::MetricReading& m) {
  uint32_t parts = 0;
  uint64_t kind = 0;
  if (!r.ReadArrayHeader(parts, "a metric")) return false;
  if (parts != kMetricParts)
    return r.Fail(fmt::format("a metric does not have {} parts", kMetricParts));
  if (!r.ReadString(m.name, "a metric's name") || !r.ReadUint(kind, "a metric's kind")) {
    return false;
  }
  if (kind > static_cast<uint64_t>(topology::MetricReading::Kind::kHistogram)) {
    return r.Fail(fmt::format("unknown metric kind {}", kind));
  }
  m.kind = static_cast<topology::MetricReading::Kind>(kind);
  if (!r.ReadInt(m.value, "a metric's value") || !ReadUints(r, m.buckets, "a histogram")) {
    return false;
  }
  if (m.buckets.size() % 2 != 0) return r.Fail("a histogram is not (bucket, count) pairs");
  return true;
}

bool ReadSmallInt(MsgpackReader& r, int& out, const char* what) {
  int64_t v = 0;
  if (!r.ReadInt(v, what)) return false;
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    return r.Fail(fmt::format("{} is out of range", what));
  }
  out = static_cast<int>(v);
  return true;
}

}  // namespace

void AppendControlMessage(const ControlMessage& m, std::string& out) {
  const std::size_t at = out.size();
  out.append(kControlHeaderBytes, '\0');
  StringSink sink{&out};
  msgpack::packer<StringSink> pk(sink);
  pk.pack_array(kParts);
  pk.pack_uint64(kControlVersion);
  pk.pack_uint8(static_cast<uint8_t>(m.type));
  pk.pack_int32(m.worker);
  pk.pack_int64(m.pid);
  PackString(pk, m.text);
  pk.pack_uint64(m.fingerprint);
  pk.pack_int32(m.task);
  m.completed ? pk.pack_true() : pk.pack_false();
  pk.pack_uint64(m.dropped_frames);
  pk.pack_int32(m.incarnation);
  pk.pack_array(static_cast<uint32_t>(m.tasks.size()));
  for (const TaskCounters& t : m.tasks) {
    pk.pack_array(kCounterParts);
    pk.pack_int32(t.task);
    for (uint64_t v : {t.emitted, t.executed, t.acked, t.failed, t.errors, t.queue_high_water,
                       t.blocked_pushes, t.timed_out, t.replayed, t.pending, t.dropped}) {
      pk.pack_uint64(v);
    }
    pk.pack_array(static_cast<uint32_t>(t.latency.size()));
    for (uint64_t v : t.latency) pk.pack_uint64(v);
    PackNamed(pk, t.gauges);
    PackString(pk, t.last_error);
    pk.pack_int64(t.last_error_ms);
    PackUints(pk, t.execute_latency);
    pk.pack_uint64(t.queue_size);
    pk.pack_uint64(t.queue_capacity);
    pk.pack_array(static_cast<uint32_t>(t.user_metrics.size()));
    for (const topology::MetricReading& m : t.user_metrics) {
      pk.pack_array(kMetricParts);
      PackString(pk, m.name);
      pk.pack_uint8(static_cast<uint8_t>(m.kind));
      pk.pack_int64(m.value);
      PackUints(pk, m.buckets);
    }
    PackNamed(pk, t.dropped_by_cause);
  }
  pk.pack_array(static_cast<uint32_t>(m.endpoints.size()));
  for (const std::string& e : m.endpoints) PackString(pk, e);
  pk.pack_array(static_cast<uint32_t>(m.finished.size()));
  for (int t : m.finished) pk.pack_int32(t);
  const auto n = static_cast<uint32_t>(out.size() - at - kControlHeaderBytes);
  for (int i = 0; i < 4; ++i) out[at + i] = static_cast<char>((n >> (24 - 8 * i)) & 0xff);
}

uint32_t ControlBodyLength(const char* header) noexcept {
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n = (n << 8) | static_cast<unsigned char>(header[i]);
  return n;
}

bool DecodeControlMessage(std::string_view body, ControlMessage& m, std::string* error) {
  MsgpackReader r(body);
  const auto fail = [&](bool) {
    if (error != nullptr) *error = r.error();
    return false;
  };
  uint32_t parts = 0;
  uint64_t version = 0, type = 0;
  if (!r.ReadArrayHeader(parts, "the control message") || !r.ReadUint(version, "the version")) {
    return fail(false);
  }
  if (version != kControlVersion || parts != kParts) {
    return fail(
        r.Fail(fmt::format("control message version {} with {} parts, expected version "
                           "{} with {}",
                           version, parts, kControlVersion, kParts)));
  }
  if (!r.ReadUint(type, "the type")) return fail(false);
  if (type < 1 || type > static_cast<uint64_t>(ControlType::kDeactivate)) {
    return fail(r.Fail(fmt::format("unknown control message type {}", type)));
  }
  m.type = static_cast<ControlType>(type);
  if (!ReadSmallInt(r, m.worker, "the worker") || !r.ReadInt(m.pid, "the pid") ||
      !r.ReadString(m.text, "the text") || !r.ReadUint(m.fingerprint, "the fingerprint") ||
      !ReadSmallInt(r, m.task, "the task") || !r.ReadBool(m.completed, "completed") ||
      !r.ReadUint(m.dropped_frames, "the dropped frames") ||
      !ReadSmallInt(r, m.incarnation, "the incarnation")) {
    return fail(false);
  }
  uint32_t n = 0;
  if (!r.ReadArrayHeader(n, "the tasks")) return fail(false);
  m.tasks.assign(n, {});
  for (TaskCounters& t : m.tasks) {
    uint32_t k = 0;
    if (!r.ReadArrayHeader(k, "task counters")) return fail(false);
    if (k != kCounterParts) {
      return fail(r.Fail(fmt::format("task counters do not have {} parts", kCounterParts)));
    }
    if (!ReadSmallInt(r, t.task, "a task")) return fail(false);
    for (uint64_t* v :
         {&t.emitted, &t.executed, &t.acked, &t.failed, &t.errors, &t.queue_high_water,
          &t.blocked_pushes, &t.timed_out, &t.replayed, &t.pending, &t.dropped}) {
      if (!r.ReadUint(*v, "a counter")) return fail(false);
    }
    uint32_t buckets = 0;
    if (!r.ReadArrayHeader(buckets, "a latency histogram")) return fail(false);
    if (buckets % 2 != 0) return fail(r.Fail("a latency histogram is not (bucket, count) pairs"));
    t.latency.assign(buckets, 0);
    for (uint64_t& v : t.latency) {
      if (!r.ReadUint(v, "a latency bucket")) return fail(false);
    }
    if (!ReadNamed(r, t.gauges, kGaugeWords)) return fail(false);
    if (!r.ReadString(t.last_error, "the last error") ||
        !r.ReadInt(t.last_error_ms, "the last error's time") ||
        !ReadUints(r, t.execute_latency, "the execute latency") ||
        !r.ReadUint(t.queue_size, "the queue size") ||
        !r.ReadUint(t.queue_capacity, "the queue capacity")) {
      return fail(false);
    }
    if (t.execute_latency.size() % 2 != 0) {
      return fail(r.Fail("the execute latency is not (bucket, count) pairs"));
    }
    uint32_t metrics = 0;
    if (!r.ReadArrayHeader(metrics, "the task's metrics")) return fail(false);
    t.user_metrics.assign(metrics, {});
    for (topology::MetricReading& m : t.user_metrics) {
      if (!ReadMetric(r, m)) return fail(false);
    }
    if (!ReadNamed(r, t.dropped_by_cause, kCauseWords)) return fail(false);
  }
  if (!r.ReadArrayHeader(n, "the endpoints")) return fail(false);
  m.endpoints.assign(n, {});
  for (std::string& e : m.endpoints) {
    if (!r.ReadString(e, "an endpoint")) return fail(false);
  }
  if (!r.ReadArrayHeader(n, "the finished tasks")) return fail(false);
  m.finished.assign(n, 0);
  for (int& t : m.finished) {
    if (!ReadSmallInt(r, t, "a finished task")) return fail(false);
  }
  if (r.remaining() != 0) {
    return fail(r.Fail(fmt::format("{} trailing bytes after the control message", r.remaining())));
  }
  return true;
}

}  // namespace tempest::transport

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tempest/metrics.h"

namespace tempest::transport {

// What the supervisor and its workers tell each other over a worker's control socket
// (docs/multi-process.md has the whole conversation). W → S: hello, ready, task-finished,
// heartbeat, fatal, done. S → W: peers, start, peer-restarted, stop, abort, exit, activate,
// deactivate.
enum class ControlType : uint8_t {
  kHello = 1,          // worker, pid, text = data endpoint, fingerprint
  kReady = 2,          // every local task prepared and every peer heard from
  kTaskFinished = 3,   // task
  kHeartbeat = 4,      // tasks, dropped_frames
  kFatal = 5,          // text: the error that ends the run
  kDone = 6,           // completed, tasks, dropped_frames: all local work over and confirmed
  kPeers = 7,          // endpoints (by worker), finished (tasks to skip), incarnation
  kStart = 8,          // spouts may emit
  kPeerRestarted = 9,  // worker, text = its new data endpoint
  kStop = 10,          // drain gracefully
  kAbort = 11,         // stop at once (stop timeout, a fatal error elsewhere)
  kExit = 12,          // everything is confirmed everywhere: close and exit
  kActivate = 13,      // spouts may emit again (after kDeactivate)
  kDeactivate = 14,    // spouts stop emitting until kActivate; everything else goes on
};

// Live counters of one task, as a worker reports them.
struct TaskCounters {
  int task = 0;
  uint64_t emitted = 0, executed = 0, acked = 0, failed = 0, errors = 0, dropped = 0;
  uint64_t queue_high_water = 0, blocked_pushes = 0;
  uint64_t timed_out = 0, replayed = 0, pending = 0;  // spouts
  // Complete-latency histogram of a spout: (bucket, count) pairs, flattened, non-zero buckets only.
  std::vector<uint64_t> latency;
  // Bolts: named gauges (ReportGauge), latest value per name, in first-reported order.
  std::vector<std::pair<std::string, uint64_t>> gauges;
  // The task's latest error (user code threw, ReportError) and when, in ms since the epoch.
  std::string last_error;
  int64_t last_error_ms = 0;
  // Bolts: execute latency (ns) as (bucket, count) pairs, like `latency`.
  std::vector<uint64_t> execute_latency;
  uint64_t queue_size = 0, queue_capacity = 0;
  std::vector<topology::MetricReading> user_metrics;               // the task's own metrics
  std::vector<std::pair<std::string, uint64_t>> dropped_by_cause;  // `dropped` by cause
  friend bool operator==(const TaskCounters&, const TaskCounters&) = default;
};

// One control message; which fields mean something depends on `type` (see ControlType).
struct ControlMessage {
  ControlType type = ControlType::kHeartbeat;
  int worker = 0;
  int64_t pid = 0;
  std::string text;
  uint64_t fingerprint = 0;
  int task = 0;
  bool completed = false;
  uint64_t dropped_frames = 0;
  int incarnation = 0;
  std::vector<TaskCounters> tasks;
  std::vector<std::string> endpoints;
  std::vector<int> finished;
  friend bool operator==(const ControlMessage&, const ControlMessage&) = default;
};

// Control messages on a stream socket are a 4-byte big-endian length, then the msgpack body.
inline constexpr std::size_t kControlHeaderBytes = 4;
inline constexpr uint32_t kMaxControlBytes = 16u << 20;

// Appends the length prefix and the body.
void AppendControlMessage(const ControlMessage& message, std::string& out);
// The body length a 4-byte header announces.
uint32_t ControlBodyLength(const char* header) noexcept;
// Decodes a body. Never throws; false with a one-line reason on anything malformed.
bool DecodeControlMessage(std::string_view body, ControlMessage& out, std::string* error);

}  // namespace tempest::transport

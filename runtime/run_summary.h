#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/acking/latency_histogram.h"
#include "tempest/metrics.h"
#include "topology/named_counts.h"
#include "topology/task_layout.h"
#include "topology/topology_spec.h"

namespace tempest::runtime {

struct LocalRunOptions {
  // Tuples a task's inbound queue holds before its producers block (backpressure), unless the
  // topology sets topology.executor.receive.buffer.size (see QueueCapacity).
  std::size_t queue_capacity = 16 * 1024;
  // Tuples per hand-off between tasks; a partial batch is flushed whenever its producer runs
  // out of input (and at least every millisecond for a busy spout).
  std::size_t batch_size = 256;
  // A frame to a task of another worker is sent once it holds this many bytes (or on a flush,
  // as above): larger than a local batch, since every message costs system calls on both sides.
  std::size_t frame_bytes = 64 * 1024;
  // How long a Stop() may drain before the run is cut short.
  std::chrono::milliseconds stop_timeout{10'000};
  // Seed of the shuffle orders and random choices of the groupings (reproducible runs).
  uint64_t seed = 0x7E3D57;
  // Spout tasks track their own tuple trees, the bolts acking straight to them; false sends
  // every tree through the acker tasks, as Storm does (what spout tasks beyond the root ids'
  // lanes always do: runtime/acking/ack_ids.h). For tests of that path.
  bool spouts_track_trees = true;
};

// The capacity of a task's inbound queue (and a worker's credit towards a remote task) in a run
// of `spec`: its topology.executor.receive.buffer.size when set, else the run's queue_capacity.
inline std::size_t QueueCapacity(const topology::TopologySpec& spec,
                                 const LocalRunOptions& options) noexcept {
  return spec.config.receive_buffer_size > 0
             ? static_cast<std::size_t>(spec.config.receive_buffer_size)
             : options.queue_capacity;
}

// Totals of one component over a run.
struct ComponentSummary {
  std::string id;
  bool spout = false;
  int tasks = 0;
  uint64_t emitted = 0;
  uint64_t executed = 0;
  uint64_t acked = 0;
  uint64_t failed = 0;
  uint64_t errors = 0;
  // Bolts: inputs dropped on purpose, e.g. late tuples (ReportDropped); spouts: message ids
  // given up after topology.spout.max.retries replays.
  uint64_t dropped = 0;
  topology::NamedCounts dropped_by_cause;  // `dropped` by cause ("late", "max_retries", ...)
  // Spouts: of `failed`, how many timed out; emits of ids failed before; trees still undecided
  // at the end; emit -> tree completed latencies of the acked ids.
  uint64_t timed_out = 0;
  uint64_t replayed = 0;
  uint64_t pending = 0;
  LatencyCounts complete_latency;
  // Bolts: named gauges (ReportGauge), each summed over the tasks, in first-reported order.
  std::vector<std::pair<std::string, uint64_t>> gauges;
};

struct RunSummary {
  std::vector<ComponentSummary> components;  // in topology order
  double seconds = 0;
  bool completed = false;       // every task ended by end-of-stream (not force-stopped)
  std::string error;            // the fatal error that ended the run, if any
  int workers = 1;              // worker processes (1: the run stayed in one process)
  int restarts = 0;             // worker processes restarted after a crash or hang
  uint64_t dropped_frames = 0;  // malformed or misaddressed frames received, counted and dropped

  const ComponentSummary* Find(std::string_view id) const noexcept;
};

// Per-task live view, for progress displays and tests.
struct TaskSnapshot {
  int task = 0;
  std::string component;
  uint64_t emitted = 0, executed = 0, acked = 0, failed = 0, errors = 0, dropped = 0;
  topology::NamedCounts dropped_by_cause;  // `dropped` by cause, in first-reported order
  // Spouts: trees timed out; bolts: inputs failed unexecuted after waiting in the queue longer
  // than the message timeout.
  uint64_t timed_out = 0;
  uint64_t replayed = 0, pending = 0;  // spouts only
  LatencyCounts complete_latency;      // spouts only
  std::size_t queue_high_water = 0;    // most tuples ever queued for this task
  uint64_t blocked_pushes = 0;         // times a producer waited for room in its queue
  bool finished = false;               // the task has ended (end-of-stream, or stopped)
  std::vector<std::pair<std::string, uint64_t>> gauges;  // ReportGauge, latest value per name
  LatencyCounts execute_latency;   // bolts: Execute's time per tuple, in nanoseconds (sampled)
  std::size_t queue_size = 0;      // tuples queued for the task now
  std::size_t queue_capacity = 0;  // the queue's capacity (producers block there)
  std::vector<topology::MetricReading> user_metrics;  // the task's own (RegisterCounter, ...)
  std::string last_error;     // the latest error of user code (threw, ReportError); empty: none
  int64_t last_error_ms = 0;  // when, in ms since the epoch
};

// Adds a histogram given as (bucket, count) pairs (as heartbeats carry them) into another,
// keeping the pairs in bucket order.
void MergeBucketPairs(std::vector<uint64_t>& into, const std::vector<uint64_t>& add);

// A component's value of a gauge from two of its tasks' values: a watermark is the component's
// lowest (the event time it has fully seen), a lag its highest; any other gauge (rows held,
// bytes read) adds up.
uint64_t CombineGauge(std::string_view name, uint64_t a, uint64_t b) noexcept;

// Totals per component (in spec order) of the given task counters; the other fields are left for
// the caller.
RunSummary Summarize(const topology::TopologySpec& spec, const topology::TaskLayout& layout,
                     const std::vector<TaskSnapshot>& tasks);

}  // namespace tempest::runtime

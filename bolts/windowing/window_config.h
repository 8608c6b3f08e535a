#pragma once

#include <cstdint>
#include <string>

#include "tempest/windowed_bolt.h"
#include "topology/topology_spec.h"

namespace tempest::bolts {

// The event-time keys every watermark user shares: lag_ms, watermark_interval_ms and
// idle_timeout_ms must be >= 0. Throws std::invalid_argument naming the key.
void ValidateWatermarkSettings(int64_t lag_ms, int64_t watermark_interval_ms,
                               int64_t idle_timeout_ms);

// Checks the values (positive length and slide, non-negative lag, interval and idle timeout).
// Throws std::invalid_argument naming the key.
void ValidateWindowConfig(const WindowConfig& config);

// Storm's check that a window can complete before its tuples time out: length + slide (of the
// duration parts) must not exceed topology.message.timeout.secs, and (of the count parts)
// topology.max.spout.pending when it is set. Skipped when acking is off (acker executors 0). Throws
// std::invalid_argument with Storm's message, e.g. "Window duration (length + sliding interval)
// value 40000 is more than topology.message.timeout.secs value 30000".
// Also: a count window that can hold more than topology.window.memory.limit.mb (at
// kMinHeldRowBytes a tuple) throws.
void ValidateWindowFitsTopology(const WindowConfig& config, const topology::TopologyConfig& topo);

// The least a held tuple costs (a packed row's header and offsets): what a count window's memory
// is estimated from before any tuple is seen.
inline constexpr int64_t kMinHeldRowBytes = 64;

// What a count window of `config` can hold, in bytes at kMinHeldRowBytes a tuple; 0 for a
// duration window (it depends on the input rate).
int64_t CountWindowBytes(const WindowConfig& config);

// A warning when a count window can hold more than topology.window.memory.budget.mb, else "".
std::string WindowMemoryWarning(const WindowConfig& config, const topology::TopologyConfig& topo);

}  // namespace tempest::bolts

#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/process/process_cluster.h"
#include "transport/control_message.h"

namespace tempest::runtime {

// What one worker's tasks reported (heartbeats, done) over all its incarnations: when one ends,
// its counts are carried over (its pending trees dropped: they will be replayed), so totals
// never go back when a worker restarts. Supervisor thread only.
class WorkerCounters {
 public:
  // A heartbeat or done message of the current incarnation.
  void Update(const transport::ControlMessage& message);
  // The current incarnation ended.
  void CarryOver();
  // A task's totals, carried and current.
  transport::TaskCounters Of(int task) const;
  uint64_t dropped_frames() const noexcept { return dropped_carried_ + dropped_current_; }

 private:
  std::map<int, transport::TaskCounters> current_, carried_;
  uint64_t dropped_current_ = 0, dropped_carried_ = 0;
};

// Adds `c` into `into`: counts summed, gauges (levels) replaced, latency histograms merged.
void AddCounters(transport::TaskCounters& into, const transport::TaskCounters& c);

// A task's snapshot as Snapshot() and the run summary show it.
TaskSnapshot SnapshotOf(const transport::TaskCounters& c, std::string component, bool finished);

// The run's status as the supervisor publishes it to other threads, and waits on its changes.
// Thread-safe.
class PublishedStatus {
 public:
  void Publish(std::vector<TaskSnapshot> tasks, std::vector<WorkerStatus> workers, int starts);
  void MarkEnded();
  std::vector<TaskSnapshot> Tasks() const;
  std::vector<WorkerStatus> Workers() const;
  // Blocks until `ready(status)` holds (checked at each change) or `timeout` passed.
  bool WaitFor(const std::function<bool(const ClusterStatus&)>& ready,
               std::chrono::milliseconds timeout) const;
  // Blocks until `ready(status)` holds.
  void Wait(const std::function<bool(const ClusterStatus&)>& ready) const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  ClusterStatus status_;
};

}  // namespace tempest::runtime

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/run_summary.h"
#include "topology/topology_spec.h"

namespace tempest::launch {

// The one-line progress report a run prints to stderr every --progress-interval seconds when
// stderr is not a terminal (a log file, a pipe, a service manager): each component's total and
// rate since the line before (spouts: emitted, bolts: executed), then the spouts' acked and
// failed trees, the errors of every task, and how much of a bounded input is read
// (InputProgress). Not thread-safe: call from one thread.
class ProgressLine {
 public:
  explicit ProgressLine(const topology::TopologySpec& spec);

  // The line for `tasks` (a cluster's Snapshot) at `elapsed` seconds into the run, without a
  // newline; rates are over the time since the previous call (since the start for the first).
  std::string Render(const std::vector<runtime::TaskSnapshot>& tasks, double elapsed);

 private:
  struct Component {
    std::string id;
    bool spout = false;
    uint64_t last = 0;  // the total the previous line showed
  };
  std::vector<Component> components_;  // in topology order
  double last_elapsed_ = 0;
};

}  // namespace tempest::launch

#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/process/process_cluster.h"
#include "runtime/run_summary.h"
#include "topology/topology_spec.h"

namespace tempest::launch {

// What the REST answers are made from: the topology, its tasks' latest snapshot, the run's age.
struct RunView {
  const topology::TopologySpec* spec = nullptr;
  std::vector<runtime::TaskSnapshot> tasks;
  double uptime_seconds = 0;
  int workers = 1;
  std::vector<runtime::WorkerStatus> worker_status;  // empty: the run is in this process
  std::string status = "ACTIVE";                     // ACTIVE, INACTIVE or KILLED (Storm's)
};

// The JSON answer to GET `target` under /api/v1/ (shapes after Storm UI's REST API, in
// docs/metrics.md): /api/v1/topology/summary, /api/v1/topology/NAME and
// /api/v1/topology/NAME/component/ID. nullopt for any other path (404).
std::optional<std::string> RestAnswer(std::string_view target, const RunView& run);

// A path segment with its %XX escapes decoded (a topology or component name with a space in it
// comes as %20); a malformed escape is kept as it is.
std::string DecodedPathSegment(std::string_view segment);

}  // namespace tempest::launch

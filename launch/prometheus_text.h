#pragma once

#include <string>
#include <vector>

#include "runtime/process/process_cluster.h"
#include "runtime/run_summary.h"
#include "topology/topology_spec.h"

namespace tempest::launch {

// A running topology's task metrics in Prometheus' text exposition format (version 0.0.4), as
// served at /metrics: per task (labels topology, component, task) the counters
// tempest_{emitted,executed,acked,failed,errors,dropped,timed_out,replayed}_total, the gauges
// tempest_pending and tempest_queue_high_water, the gauges the task reports
// (tempest_task_gauge, with label name), and per spout task the complete latency as the
// histogram tempest_complete_latency_seconds; per worker process (label worker), when the run has
// several, tempest_worker_up, tempest_worker_restarts_total and tempest_dropped_frames_total.
// docs/metrics.md describes each.
std::string PrometheusText(const topology::TopologySpec& spec,
                           const std::vector<runtime::TaskSnapshot>& tasks,
                           const std::vector<runtime::WorkerStatus>& workers = {});

}  // namespace tempest::launch

#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/run_summary.h"
#include "topology/topology_spec.h"
#include "transport/transport.h"

namespace tempest::runtime {

// What a worker process is told by the supervisor that starts it (in its environment).
struct WorkerOptions {
  int index = 0;        // this worker, 0-based
  int workers = 1;      // how many the run has
  int control_fd = -1;  // the supervisor's end of a socket pair (docs/multi-process.md)
  std::string run_dir;  // the run's private folder (ipc sockets)
  transport::EndpointKind endpoint = transport::EndpointKind::kIpc;
  transport::CurveKeys curve;  // tcp: the run's keys (in the environment, never on argv)
  LocalRunOptions run;
  std::chrono::milliseconds heartbeat{500};
};

// The flags a supervisor gives a worker (--worker-index, --workers, --control-fd, --run-dir,
// --endpoint, --heartbeat-ms, --queue-capacity, --batch-size, --frame-bytes), and back.
// ParseWorkerFlags throws std::invalid_argument naming a bad or missing flag.
std::vector<std::string> WorkerFlags(const WorkerOptions& options);
WorkerOptions ParseWorkerFlags(const std::vector<std::string>& flags);

// The environment variable that carries a worker's flags, one per line: a process started with
// it is a worker, whatever its command line (which stays the program's own, so a program that is
// its own worker builds the same topology from the same arguments).
inline constexpr const char* kWorkerFlagsVariable = "TEMPEST_WORKER";
// "NAME=flag\nflag..." for a worker's environment.
std::string WorkerFlagsEnvironmentEntry(const WorkerOptions& options);
// This process's worker flags when it was started as a worker (the variable is then removed, so
// processes it starts are not workers); nullopt otherwise. Throws std::invalid_argument as
// ParseWorkerFlags.
std::optional<WorkerOptions> WorkerOptionsFromEnvironment();

// Runs one worker process's share of a topology: binds its data socket, says hello to the
// supervisor, connects to its peers, prepares its tasks, starts them when told, reports
// heartbeats, finished tasks and errors, and returns once the supervisor says exit (0), or at
// once when the supervisor's socket closes (1: the supervisor is gone, so is the run). Never
// throws: a failure is reported to the supervisor as fatal.
int RunWorker(std::shared_ptr<const topology::TopologySpec> spec, const WorkerOptions& options);

}  // namespace tempest::runtime

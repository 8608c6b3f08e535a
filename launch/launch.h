#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "launch/console.h"
#include "runtime/process/worker.h"
#include "topology/topology_spec.h"
#include "transport/transport.h"

namespace tempest::launch {

inline constexpr std::chrono::milliseconds kDefaultProgressInterval{10'000};

// How `tempest run` and RunTopology run a topology.
struct LaunchOptions {
  int workers = 0;  // worker processes; 0: topology.workers (1 runs everything in this process)
  transport::EndpointKind endpoint = transport::EndpointKind::kIpc;
  bool quiet = false;  // errors only: no live lines, no progress lines, no summary
  // Without a terminal, one progress line on stderr this often (ProgressLine); 0: none.
  std::chrono::milliseconds progress_interval = kDefaultProgressInterval;
  // --metrics-port: overrides topology.metrics.port (0 serves no /metrics).
  std::optional<int> metrics_port;
  LogSettings log;
  // Starts this program again as one worker: the same arguments, so it builds the same
  // topology (the worker's own flags travel in its environment, runtime/process/worker.h).
  std::vector<std::string> worker_command;
};

// --progress-interval's seconds as LaunchOptions::progress_interval (0: none).
inline std::chrono::milliseconds ProgressInterval(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000 + 0.5));
}

// Exit codes of a run (docs/contracts.md, "Command line").
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitInvalid = 2;

// Runs a validated topology to its end, in this process or as N worker processes under it:
// logs, the live lines (on a terminal) and the summary go to stderr, Ctrl-C / SIGTERM drain
// the run. Returns kExitOk, or kExitFailed with the reason printed.
int Launch(std::shared_ptr<const topology::TopologySpec> spec, const LaunchOptions& options);

// Runs this process as the worker its supervisor started (`worker`: from
// runtime::WorkerOptionsFromEnvironment). Logs go to stderr, which the supervisor relays.
int RunAsWorker(std::shared_ptr<const topology::TopologySpec> spec,
                const runtime::WorkerOptions& worker, const LogSettings& log);

// The path of this program's executable (/proc/self/exe resolved). Throws std::runtime_error.
std::string SelfExecutable();

}  // namespace tempest::launch

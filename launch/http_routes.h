#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "launch/metrics_server.h"
#include "runtime/process/process_cluster.h"
#include "runtime/run_summary.h"
#include "topology/topology_spec.h"

namespace tempest::launch {

// What the HTTP endpoint reads from and does to the run it serves. Every function is called on
// the server's thread.
struct ServedRun {
  const topology::TopologySpec* spec = nullptr;
  int workers = 1;
  std::chrono::steady_clock::time_point start;
  std::function<std::vector<runtime::TaskSnapshot>()> tasks;
  std::function<std::vector<runtime::WorkerStatus>()> worker_status;
  std::function<void(bool active)> set_active;  // the spouts' deactivate / activate
  std::function<void()> kill;                   // a graceful stop, as Ctrl-C
};

// The endpoint's answers (docs/metrics.md): GET /metrics (Prometheus text), GET /api/v1/…
// (JSON), GET / (the web UI), and POST /api/v1/topology/NAME/{activate,deactivate,kill}, which
// act only with the run's token in the X-Tempest-Token header.
class HttpRoutes {
 public:
  HttpRoutes(ServedRun run, std::string token);
  std::optional<HttpAnswer> operator()(const HttpRequest& request);

 private:
  std::optional<HttpAnswer> Act(std::string_view target, std::string_view token);
  const char* Status() const noexcept;

  ServedRun run_;
  std::string token_;
  bool active_ = true;
  bool killed_ = false;
};

// 32 random hex digits: the token that lets a client act on the run.
std::string MakeToken();
// Writes `token` to DIR/ui-token (mode 0600; DIR is the run's 0700 folder) and returns the
// file's path. Throws std::runtime_error naming the file.
std::string WriteToken(const std::string& dir, const std::string& token);

}  // namespace tempest::launch

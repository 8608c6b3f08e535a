#include "runtime/local_cluster.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <stdexcept>

#include "runtime/task_host.h"
#include "topology/task_layout.h"

namespace tempest::runtime {

using Clock = std::chrono::steady_clock;

struct LocalCluster::State {
  std::shared_ptr<const topology::TopologySpec> spec;
  LocalRunOptions options;
  std::shared_ptr<const topology::TaskLayout> layout;
  std::unique_ptr<TaskHost> host;
  Clock::time_point started;
  std::optional<RunSummary> summary;
};

LocalCluster::LocalCluster(std::shared_ptr<const topology::TopologySpec> topology,
                           LocalRunOptions options)
    : state_(std::make_unique<State>()) {
  state_->spec = std::move(topology);
  state_->options = options;
}

LocalCluster::~LocalCluster() {
  if (state_->host && !state_->summary) {
    Stop();
    Wait();
  }
}

void LocalCluster::Start() {
  State& s = *state_;
  if (s.host || s.summary) throw std::logic_error("LocalCluster started twice");
  topology::Validate(*s.spec);
  s.layout =
      std::make_shared<const topology::TaskLayout>(*s.spec, topology::AckerTasks(*s.spec, 1));
  TaskHost::Options options;
  options.run = s.options;
  auto host = std::make_unique<TaskHost>(s.spec, s.layout, std::move(options));
  host->Start();
  s.host = std::move(host);
  s.started = Clock::now();
}

void LocalCluster::Stop() {
  if (state_->host) state_->host->control().RequestStop();
}

void LocalCluster::SetActive(bool active) {
  if (state_->host) state_->host->control().SetActive(active);
}

RunSummary LocalCluster::Wait() {
  State& s = *state_;
  if (s.summary) return *s.summary;
  if (!s.host) throw std::logic_error("LocalCluster::Wait before Start");
  RunControl& control = s.host->control();
  // Until a Stop(), wait for the run to end by itself; after one, wait at most stop_timeout.
  if (!control.WaitAllFinishedOrStop() &&
      !control.WaitAllFinished(Clock::now() + s.options.stop_timeout)) {
    spdlog::warn("topology '{}' did not drain within {} ms; cutting the run short", s.spec->name,
                 s.options.stop_timeout.count());
    control.Abort();
    control.WaitAllFinished();
  }
  s.host->Join();
  RunSummary summary = Summarize(*s.spec, *s.layout, s.host->Snapshot());
  summary.seconds = std::chrono::duration<double>(Clock::now() - s.started).count();
  summary.error = control.fatal_error();
  summary.completed = !control.aborted();
  s.summary = summary;
  return summary;
}

RunSummary LocalCluster::Run() {
  Start();
  return Wait();
}

std::vector<TaskSnapshot> LocalCluster::Snapshot() const {
  const State& s = *state_;
  if (!s.host) return {};
  return s.host->Snapshot();
}

}  // namespace tempest::runtime

#include "runtime/local_cluster.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <stdexcept>
#include <thread>

#include "runtime/executor.h"
#include "runtime/run_control.h"
#include "runtime/task_metrics.h"
#include "runtime/task_queue.h"
#include "topology/task_layout.h"

namespace tempest::runtime {

using Clock = std::chrono::steady_clock;

const ComponentSummary* RunSummary::Find(std::string_view id) const noexcept {
  for (const ComponentSummary& c : components) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

struct LocalCluster::State {
  std::shared_ptr<const topology::TopologySpec> spec;
  LocalRunOptions options;
  std::shared_ptr<const topology::TaskLayout> layout;
  std::vector<std::unique_ptr<TaskQueue>> queues;  // by task id (0 unused)
  std::vector<std::unique_ptr<TaskMetrics>> metrics;
  std::unique_ptr<RunControl> control;
  std::vector<std::unique_ptr<Executor>> executors;
  std::vector<std::thread> threads;
  Clock::time_point started;
  std::optional<RunSummary> summary;

  void CloseAllQueues() {
    for (auto& q : queues) {
      if (q) q->Close();
    }
  }
};

LocalCluster::LocalCluster(std::shared_ptr<const topology::TopologySpec> topology,
                           LocalRunOptions options)
    : state_(std::make_unique<State>()) {
  state_->spec = std::move(topology);
  state_->options = options;
}

LocalCluster::~LocalCluster() {
  if (!state_->threads.empty() && !state_->summary) {
    Stop();
    Wait();
  }
}

void LocalCluster::Start() {
  State& s = *state_;
  if (!s.threads.empty() || s.summary) throw std::logic_error("LocalCluster started twice");
  topology::Validate(*s.spec);
  s.layout = std::make_shared<const topology::TaskLayout>(*s.spec);
  const int tasks = s.layout->task_count();
  s.queues.resize(tasks + 1);
  s.metrics.resize(tasks + 1);
  std::vector<TaskQueue*> queue_ptrs(tasks + 1, nullptr);
  for (int t = 1; t <= tasks; ++t) {
    s.queues[t] = std::make_unique<TaskQueue>(s.options.queue_capacity);
    s.metrics[t] = std::make_unique<TaskMetrics>();
    queue_ptrs[t] = s.queues[t].get();
  }
  s.control = std::make_unique<RunControl>(tasks, [&s] { s.CloseAllQueues(); });
  try {
    for (int t = 1; t <= tasks; ++t) {
      ExecutorSetup setup{s.spec,
                          s.layout,
                          t,
                          queue_ptrs,
                          s.control.get(),
                          s.metrics[t].get(),
                          Router::Options{s.options.seed, [](int) { return true; }},
                          s.options.batch_size};
      const topology::ComponentSpec* c = s.spec->Find(s.layout->ComponentOf(t));
      switch (c->kind) {
        case topology::ComponentKind::kSpout:
          s.executors.push_back(MakeSpoutExecutor(std::move(setup)));
          break;
        case topology::ComponentKind::kBolt:
          s.executors.push_back(MakeBoltExecutor(std::move(setup)));
          break;
      }
    }
  } catch (...) {
    // A grouping that cannot be built (e.g. a custom grouping's Prepare threw): nothing runs.
    s.executors.clear();
    s.control.reset();
    throw;
  }
  s.started = Clock::now();
  for (auto& e : s.executors) s.threads.emplace_back([exec = e.get()] { exec->Run(); });
}

void LocalCluster::Stop() {
  if (state_->control) state_->control->RequestStop();
}

RunSummary LocalCluster::Wait() {
  State& s = *state_;
  if (s.summary) return *s.summary;
  if (!s.control) throw std::logic_error("LocalCluster::Wait before Start");
  // Until a Stop(), wait for the run to end by itself; after one, wait at most stop_timeout.
  if (!s.control->WaitAllFinishedOrStop() &&
      !s.control->WaitAllFinished(Clock::now() + s.options.stop_timeout)) {
    spdlog::warn("topology '{}' did not drain within {} ms; cutting the run short", s.spec->name,
                 s.options.stop_timeout.count());
    s.control->Abort();
    s.control->WaitAllFinished();
  }
  for (auto& t : s.threads) t.join();

  RunSummary summary;
  summary.seconds = std::chrono::duration<double>(Clock::now() - s.started).count();
  summary.error = s.control->fatal_error();
  summary.completed = !s.control->aborted();
  for (const topology::ComponentSpec& c : s.spec->components) {
    ComponentSummary cs;
    cs.id = c.id;
    for (int t : s.layout->TasksOf(c.id)) {
      const TaskMetrics& m = *s.metrics[t];
      ++cs.tasks;
      cs.emitted += m.emitted.load();
      cs.executed += m.executed.load();
      cs.acked += m.acked.load();
      cs.failed += m.failed.load();
      cs.errors += m.errors.load();
    }
    summary.components.push_back(std::move(cs));
  }
  s.summary = summary;
  return summary;
}

RunSummary LocalCluster::Run() {
  Start();
  return Wait();
}

std::vector<TaskSnapshot> LocalCluster::Snapshot() const {
  const State& s = *state_;
  std::vector<TaskSnapshot> out;
  if (!s.layout) return out;
  for (int t = 1; t <= s.layout->task_count(); ++t) {
    const TaskMetrics& m = *s.metrics[t];
    const TaskQueue::Stats q = s.queues[t]->GetStats();
    out.push_back(TaskSnapshot{t, s.layout->ComponentOf(t), m.emitted.load(), m.executed.load(),
                               m.acked.load(), m.failed.load(), m.errors.load(),
                               q.high_water_tuples, q.blocked_pushes});
  }
  return out;
}

}  // namespace tempest::runtime

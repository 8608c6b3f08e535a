#include "runtime/task_host.h"

#include <algorithm>

#include "runtime/executor.h"
#include "runtime/process/remote_link.h"

namespace tempest::runtime {

TaskHost::TaskHost(std::shared_ptr<const topology::TopologySpec> spec,
                   std::shared_ptr<const topology::TaskLayout> layout, Options options)
    : spec_(std::move(spec)), layout_(std::move(layout)), options_(std::move(options)) {
  const int tasks = layout_->task_count();
  if (options_.tasks.empty() && options_.link == nullptr) {
    for (int t = 1; t <= tasks; ++t) options_.tasks.push_back(t);
  }
  queues_.resize(tasks + 1);
  queue_ptrs_.assign(tasks + 1, nullptr);
  metrics_.resize(tasks + 1);
  for (int t : options_.tasks) {
    queues_[t] =
        std::make_unique<TaskQueue>(QueueCapacity(*spec_, options_.run),
                                    std::chrono::microseconds(spec_->config.wait_yield_micros));
    queue_ptrs_[t] = queues_[t].get();
    metrics_[t] = std::make_unique<TaskMetrics>();
    if (std::find(options_.skip.begin(), options_.skip.end(), t) == options_.skip.end()) {
      running_.push_back(t);
    }
  }
  chains_.upstream = ChainedUpstreams(*spec_, *layout_, running_);
  chains_.input.assign(chains_.upstream.size(), nullptr);
  RunControl::Hooks hooks{[this] {
                            for (auto& q : queues_) {
                              if (q) q->Close();
                            }
                            if (options_.link != nullptr) options_.link->Close();
                          },
                          options_.notify};
  control_ = std::make_unique<RunControl>(static_cast<int>(running_.size()), std::move(hooks),
                                          options_.open_gate_when_ready);
}

TaskHost::~TaskHost() {
  if (!threads_.empty()) {
    control_->Abort();
    Join();
  }
}

void TaskHost::Start() {
  const RemoteLink* link = options_.link;
  try {
    for (int t : running_) {
      ExecutorSetup setup{
          spec_,
          layout_,
          t,
          queue_ptrs_,
          options_.link,
          options_.streams,
          options_.restarted,
          control_.get(),
          metrics_[t].get(),
          Router::Options{options_.run.seed,
                          [link](int task) { return link == nullptr || link->IsLocal(task); }},
          options_.run.batch_size,
          options_.run.frame_bytes,
          options_.run.spouts_track_trees,
          &chains_};
      if (layout_->IsAcker(t)) {
        executors_.push_back(MakeAckerExecutor(std::move(setup)));
        continue;
      }
      const topology::ComponentSpec* c = spec_->Find(layout_->ComponentOf(t));
      switch (c->kind) {
        case topology::ComponentKind::kSpout:
          executors_.push_back(MakeSpoutExecutor(std::move(setup)));
          break;
        case topology::ComponentKind::kBolt:
          executors_.push_back(MakeBoltExecutor(std::move(setup)));
          break;
      }
    }
  } catch (...) {
    // A grouping that cannot be built (e.g. a custom grouping's Prepare threw): nothing runs.
    executors_.clear();
    throw;
  }
  // A task that does not run, or has ended, leaves its inbox to the link's receiving thread.
  RemoteLink* link_rw = options_.link;
  if (link_rw != nullptr) {
    for (int t : options_.skip) link_rw->ReleaseInbox(t);
  }
  for (std::size_t i = 0; i < executors_.size(); ++i) {
    threads_.emplace_back([exec = executors_[i].get(), t = running_[i], link_rw] {
      exec->Run();
      if (link_rw != nullptr) link_rw->ReleaseInbox(t);
    });
  }
}

void TaskHost::Join() {
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

std::vector<TaskSnapshot> TaskHost::Snapshot() const {
  std::vector<TaskSnapshot> out;
  for (int t : options_.tasks) {
    const TaskMetrics& m = *metrics_[t];
    const TaskQueue::Stats q = queues_[t]->GetStats();
    TaskSnapshot s;
    s.task = t;
    s.component = layout_->ComponentOf(t);
    s.emitted = m.emitted.load();
    s.executed = m.executed.load();
    s.acked = m.acked.load();
    s.failed = m.failed.load();
    s.errors = m.errors.load();
    s.dropped = m.dropped.load();
    s.dropped_by_cause = m.DroppedByCause();
    s.timed_out = m.timed_out.load();
    s.replayed = m.replayed.load();
    s.pending = m.pending.load();
    if (s.component != topology::kAckerComponent) s.complete_latency = m.complete_latency.Read();
    s.queue_high_water = q.high_water_tuples;
    s.blocked_pushes = q.blocked_pushes;
    s.finished = m.finished.load();
    s.gauges = m.Gauges();
    s.execute_latency = m.execute_latency.Read();
    s.queue_size = q.queued_tuples;
    s.queue_capacity = q.capacity_tuples;
    s.user_metrics = m.user->Read();
    TaskMetrics::LastError error = m.GetLastError();
    s.last_error = std::move(error.text);
    s.last_error_ms = error.unix_ms;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace tempest::runtime

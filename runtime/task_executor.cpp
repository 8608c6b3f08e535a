#include "runtime/task_executor.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>

#include "runtime/acking/ack_ids.h"
#include "runtime/thread_name.h"

namespace tempest::runtime {

namespace {

// A spout's or bolt's tuples go to its subscribers, its ack messages to the ackers, and a bolt's
// to the spouts that track their own trees.
Outbox::Destinations OutboxDestinations(const ExecutorSetup& setup) {
  return {DownstreamTasks(*setup.spec, *setup.layout, setup.task), setup.layout->AckerTaskIds(),
          SelfTrackingSpouts(setup)};
}

}  // namespace

std::vector<int> SelfTrackingSpouts(const ExecutorSetup& setup) {
  const topology::ComponentSpec* me = setup.spec->Find(setup.layout->ComponentOf(setup.task));
  if (!setup.spouts_track_trees || setup.layout->AckerTaskIds().empty() || me == nullptr ||
      me->kind == topology::ComponentKind::kSpout) {
    return {};
  }
  std::vector<int> spouts = SourceSpoutTasks(*setup.spec, *setup.layout, setup.task);
  std::erase_if(spouts, [](int t) { return LaneOfTask(t) == 0; });
  return spouts;
}

TaskExecutor::TaskExecutor(ExecutorSetup setup)
    : setup_(std::move(setup)),
      context_(setup_.spec, setup_.layout, setup_.task, setup_.restarted, setup_.link != nullptr,
               setup_.metrics->user),
      metrics_(*setup_.metrics),
      emitter_(context_, setup_.router,
               Outbox(setup_.task, setup_.queues, OutboxDestinations(setup_),
                      {setup_.batch_size, setup_.frame_bytes, setup_.link, setup_.streams,
                       setup_.chains}),
               metrics_) {}

void TaskExecutor::Run() {
  RunControl& control = *setup_.control;
  const topology::ComponentSpec& spec = *setup_.spec->Find(context_.GetThisComponentId());
  NameThisThread(fmt::format("t{} {}", setup_.task, spec.id));
  bool ready = false;
  try {
    Start();
    ready = true;
  } catch (const std::exception& e) {
    control.Fatal(fmt::format("{} '{}' task {} failed to {}: {}",
                              spec.kind == topology::ComponentKind::kSpout ? "spout" : "bolt",
                              spec.id, setup_.task, StartVerb(), e.what()));
  }
  control.ArriveAndWaitForStart();
  if (ready && !control.aborted()) {
    // Every task is prepared now: tasks chained to this one may run.
    emitter_.outbox().StartChaining();
    Loop();
  }
  try {
    Finish();
  } catch (const std::exception& e) {
    Error("closing threw", e.what());
  }
  metrics_.finished.store(true);
  control.TaskFinished();
}

void TaskExecutor::Error(const char* what, const std::string& detail) {
  TaskMetrics::Bump(metrics_.errors);
  const uint64_t count = metrics_.errors.load(std::memory_order_relaxed);
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  metrics_.SetLastError(fmt::format("{}: {}", what, detail),
                        std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
  if (count <= 10 || count % 1000 == 0) {
    spdlog::error("component '{}' task {}: {}: {} (error #{} of this task)",
                  context_.GetThisComponentId(), setup_.task, what, detail, count);
  }
}

}  // namespace tempest::runtime

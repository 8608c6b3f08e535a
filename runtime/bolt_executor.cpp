#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>

#include "runtime/emitter.h"
#include "runtime/task_executor.h"
#include "topology/bolt.h"

namespace tempest::runtime {
namespace {

class BoltExecutor final : public TaskExecutor, private topology::OutputCollector {
 public:
  explicit BoltExecutor(ExecutorSetup setup)
      : TaskExecutor(std::move(setup)),
        upstream_(UpstreamTasks(*setup_.spec, *setup_.layout, setup_.task).size()) {}

 private:
  void Start() override {
    bolt_ = setup_.spec->Find(context_.GetThisComponentId())->bolt_factory();
    if (!bolt_) throw std::runtime_error("the bolt factory returned null");
    bolt_->Prepare(context_, *this);
  }
  const char* StartVerb() const override { return "prepare"; }
  void Finish() override {
    if (bolt_) bolt_->Cleanup();
  }

  void Loop() override {
    TaskQueue& inbox = *setup_.queues[setup_.task];
    Outbox& outbox = emitter_.outbox();
    const RunControl& control = *setup_.control;
    std::vector<Envelope> envelopes;
    std::size_t ended = 0;
    const std::chrono::milliseconds tick = bolt_->TickInterval();
    auto next_tick = std::chrono::steady_clock::now() + tick;
    while (ended < upstream_) {
      const bool open =
          tick.count() > 0 ? inbox.PopAllUntil(envelopes, next_tick) : inbox.PopAll(envelopes);
      if (!open) break;
      for (Envelope& e : envelopes) {
        switch (e.kind) {
          case Envelope::Kind::kTuples:
            for (const topology::Tuple& t : e.tuples) {
              // A cut-short run stops between tuples, not after everything already popped.
              if (control.aborted()) return;
              Execute(t);
            }
            break;
          case Envelope::Kind::kEndOfStream:
            ++ended;
            break;
        }
      }
      if (tick.count() > 0 && std::chrono::steady_clock::now() >= next_tick) {
        try {
          bolt_->OnTick();
        } catch (const std::exception& e) {
          Error("OnTick threw", e.what());
        }
        next_tick = std::chrono::steady_clock::now() + tick;
      }
      outbox.Flush();
      if (!outbox.open()) return;  // force-stopped
    }
    if (ended < upstream_) return;  // force-stopped before the input ended
    try {
      bolt_->OnEndOfStream();
    } catch (const std::exception& e) {
      Error("OnEndOfStream threw", e.what());
    }
    outbox.SendEndOfStream(emitter_.router().DownstreamTasks());
  }

  void Execute(const topology::Tuple& t) {
    TaskMetrics::Bump(metrics_.executed);
    try {
      bolt_->Execute(t);
    } catch (const std::exception& e) {
      Error("Execute threw", fmt::format("{} (input {})", e.what(), t.ToString()));
      Fail(t);
    } catch (...) {
      Error("Execute threw", fmt::format("a non-standard exception (input {})", t.ToString()));
      Fail(t);
    }
  }

  void DoEmit(std::string_view stream, int direct_task, topology::Anchors anchors,
              topology::Values&& values) override {
    (void)anchors;  // anchoring takes effect once the acker tracks tuple trees
    emitter_.Emit(stream, direct_task, std::move(values));
  }
  void Ack(const topology::Tuple&) override { TaskMetrics::Bump(metrics_.acked); }
  void Fail(const topology::Tuple&) override { TaskMetrics::Bump(metrics_.failed); }
  void ResetTimeout(const topology::Tuple&) override {}
  void ReportError(std::string_view message) override { Error("reported", std::string(message)); }

  std::size_t upstream_;
  std::unique_ptr<topology::Bolt> bolt_;
};

}  // namespace

std::unique_ptr<Executor> MakeBoltExecutor(ExecutorSetup setup) {
  return std::make_unique<BoltExecutor>(std::move(setup));
}

}  // namespace tempest::runtime

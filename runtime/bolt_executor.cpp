#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runtime/emitter.h"
#include "runtime/executor.h"
#include "topology/bolt.h"

namespace tempest::runtime {
namespace {

class BoltExecutor final : public Executor, private topology::OutputCollector {
 public:
  explicit BoltExecutor(ExecutorSetup setup)
      : setup_(std::move(setup)),
        context_(setup_.spec, setup_.layout, setup_.task),
        metrics_(*setup_.metrics),
        emitter_(context_, setup_.router, Outbox(setup_.task, setup_.queues, setup_.batch_size),
                 metrics_),
        upstream_(UpstreamTasks(*setup_.spec, *setup_.layout, setup_.task).size()) {}

  void Run() override {
    RunControl& control = *setup_.control;
    const std::string& id = context_.GetThisComponentId();
    bool ready = false;
    try {
      bolt_ = setup_.spec->Find(id)->bolt_factory();
      if (!bolt_) throw std::runtime_error("the bolt factory returned null");
      bolt_->Prepare(context_, *this);
      ready = true;
    } catch (const std::exception& e) {
      control.Fatal(
          fmt::format("bolt '{}' task {} failed to prepare: {}", id, setup_.task, e.what()));
    }
    control.ArriveAndWaitForStart();
    if (ready && !control.aborted()) Loop();
    if (bolt_) {
      try {
        bolt_->Cleanup();
      } catch (const std::exception& e) {
        Error("Cleanup threw", e.what());
      }
    }
    control.TaskFinished();
  }

 private:
  void Loop() {
    TaskQueue& inbox = *setup_.queues[setup_.task];
    Outbox& outbox = emitter_.outbox();
    std::vector<Envelope> envelopes;
    std::size_t ended = 0;
    while (ended < upstream_ && inbox.PopAll(envelopes)) {
      for (Envelope& e : envelopes) {
        switch (e.kind) {
          case Envelope::Kind::kTuples:
            for (const topology::Tuple& t : e.tuples) Execute(t);
            break;
          case Envelope::Kind::kEndOfStream:
            ++ended;
            break;
        }
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

  void Error(const char* what, const std::string& detail) {
    TaskMetrics::Bump(metrics_.errors);
    LogTaskError(context_.GetThisComponentId(), setup_.task, metrics_.errors.load(), what, detail);
  }

  ExecutorSetup setup_;
  topology::TopologyContext context_;
  TaskMetrics& metrics_;
  Emitter emitter_;
  std::size_t upstream_;
  std::unique_ptr<topology::Bolt> bolt_;
};

}  // namespace

std::unique_ptr<Executor> MakeBoltExecutor(ExecutorSetup setup) {
  return std::make_unique<BoltExecutor>(std::move(setup));
}

}  // namespace tempest::runtime

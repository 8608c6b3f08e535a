#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "runtime/emitter.h"
#include "runtime/remote_link.h"
#include "runtime/task_executor.h"
#include "topology/bolt.h"
#include "transport/frame.h"

namespace tempest::runtime {
namespace {

class BoltExecutor final : public TaskExecutor, private topology::OutputCollector {
 public:
  explicit BoltExecutor(ExecutorSetup setup)
      : TaskExecutor(std::move(setup)),
        upstream_(UpstreamTasks(*setup_.spec, *setup_.layout, setup_.task)),
        ended_(upstream_.size(), false) {}

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
    const std::chrono::milliseconds tick = bolt_->TickInterval();
    auto next_tick = std::chrono::steady_clock::now() + tick;
    while (ended_count_ < upstream_.size()) {
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
          case Envelope::Kind::kFrame:
            if (!ExecuteFrame(e)) return;
            break;
          case Envelope::Kind::kEndOfStream:
            EndOfStreamFrom(e.from_task);
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
    if (ended_count_ < upstream_.size()) return;  // force-stopped before the input ended
    try {
      bolt_->OnEndOfStream();
    } catch (const std::exception& e) {
      Error("OnEndOfStream threw", e.what());
    }
    outbox.SendEndOfStream(emitter_.router().DownstreamTasks());
  }

  // Decodes a batch from another worker and executes it; false if the run was cut short.
  bool ExecuteFrame(const Envelope& e) {
    RemoteLink& link = *setup_.link;
    GiveCredit(link.worker_of(e.from_task), e.frame_tuples);
    std::string error;
    const transport::DecodeStatus status =
        transport::DecodeFrame(e.frame, *setup_.streams, decoded_, &error);
    if (status != transport::DecodeStatus::kOk) {
      link.DropFrame(fmt::format("task {}: {}", setup_.task, error));
      return true;
    }
    for (const topology::Tuple& t : decoded_.tuples) {
      if (setup_.control->aborted()) return false;
      Execute(t);
    }
    return true;
  }

  // Gives the queue room just freed back to the worker that sent the frame, a credit batch at a
  // time (remote_link.h says why a sender cannot starve on what is held back).
  void GiveCredit(int peer, uint32_t tuples) {
    if (owed_.empty()) owed_.assign(setup_.link->workers(), 0);
    uint64_t& owed = owed_[peer];
    owed += tuples;
    if (owed >= setup_.link->credit_batch()) {
      setup_.link->ReturnCredit(peer, setup_.task, owed);
      owed = 0;
    }
  }

  // End-of-stream counts once per upstream task: a restarted worker's peers send theirs again.
  void EndOfStreamFrom(int task) {
    const auto it = std::lower_bound(upstream_.begin(), upstream_.end(), task);
    if (it == upstream_.end() || *it != task) {
      Error("end-of-stream", fmt::format("from task {}, which does not feed this task", task));
      return;
    }
    const std::size_t i = static_cast<std::size_t>(it - upstream_.begin());
    if (!ended_[i]) {
      ended_[i] = true;
      ++ended_count_;
    }
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

  const std::vector<int> upstream_;  // ascending
  std::vector<bool> ended_;          // by position in upstream_
  std::size_t ended_count_ = 0;
  std::unique_ptr<topology::Bolt> bolt_;
  transport::Frame decoded_;    // reused for every remote batch
  std::vector<uint64_t> owed_;  // by worker: tuples taken, credit not yet given back
};

}  // namespace

std::unique_ptr<Executor> MakeBoltExecutor(ExecutorSetup setup) {
  return std::make_unique<BoltExecutor>(std::move(setup));
}

}  // namespace tempest::runtime

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <thread>

#include "runtime/emitter.h"
#include "runtime/task_executor.h"
#include "topology/spout.h"

namespace tempest::runtime {

namespace {

using Clock = std::chrono::steady_clock;

class SpoutExecutor final : public TaskExecutor, private topology::SpoutOutputCollector {
 public:
  explicit SpoutExecutor(ExecutorSetup setup) : TaskExecutor(std::move(setup)) {}

 private:
  void Start() override {
    spout_ = setup_.spec->Find(context_.GetThisComponentId())->spout_factory();
    if (!spout_) throw std::runtime_error("the spout factory returned null");
    spout_->Open(context_, *this);
  }
  const char* StartVerb() const override { return "open"; }
  void Finish() override {
    if (spout_) spout_->Close();
  }

  void Loop() override {
    RunControl& control = *setup_.control;
    Outbox& outbox = emitter_.outbox();
    spout_->Activate();
    auto last_flush = Clock::now();
    int idle_streak = 0;
    uint64_t calls = 0;
    for (;;) {
      if (control.stop_requested()) {
        spout_->Deactivate();
        break;
      }
      topology::NextResult result = topology::NextResult::kIdle;
      try {
        result = spout_->NextTuple();
      } catch (const std::exception& e) {
        Error("NextTuple threw", e.what());
      }
      AckEmitted();
      if (!outbox.open()) return;  // force-stopped
      bool exhausted = false;
      switch (result) {
        case topology::NextResult::kEmitted:
          idle_streak = 0;
          // Flush on a short timer too, so a steady trickle is not held back by batching.
          if ((++calls & 63) == 0 && Clock::now() - last_flush > std::chrono::milliseconds(1)) {
            outbox.Flush();
            last_flush = Clock::now();
          }
          break;
        case topology::NextResult::kIdle:
          outbox.Flush();
          last_flush = Clock::now();
          Backoff(++idle_streak);
          break;
        case topology::NextResult::kExhausted:
          exhausted = true;
          break;
      }
      if (exhausted) break;
    }
    outbox.SendEndOfStream(emitter_.router().DownstreamTasks());
  }

  // Idle spouts yield first, then sleep up to 1 ms: cheap when busy, quiet when idle.
  static void Backoff(int streak) {
    if (streak < 16) {
      std::this_thread::yield();
    } else {
      const int us = std::min(1000, 10 << std::min(streak - 16, 7));
      std::this_thread::sleep_for(std::chrono::microseconds(us));
    }
  }

  // Until the acker exists (topology.acker.executors: 0 semantics), a tracked tuple is acked as
  // soon as it is emitted, on the spout's own thread after NextTuple returns.
  void AckEmitted() {
    if (to_ack_.empty()) return;
    for (topology::Value& id : to_ack_) {
      try {
        spout_->Ack(id);
      } catch (const std::exception& e) {
        Error("Ack threw", e.what());
      }
      TaskMetrics::Bump(metrics_.acked);
    }
    to_ack_.clear();
  }

  void DoEmit(std::string_view stream, int direct_task, topology::Values&& values,
              topology::Value&& message_id) override {
    emitter_.Emit(stream, direct_task, std::move(values));
    if (!message_id.IsNull()) to_ack_.push_back(std::move(message_id));
  }

  void ReportError(std::string_view message) override { Error("reported", std::string(message)); }

  std::unique_ptr<topology::Spout> spout_;
  std::vector<topology::Value> to_ack_;
};

}  // namespace

std::unique_ptr<Executor> MakeSpoutExecutor(ExecutorSetup setup) {
  return std::make_unique<SpoutExecutor>(std::move(setup));
}

}  // namespace tempest::runtime

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "runtime/acking/ack_ids.h"
#include "runtime/acking/ack_ledger.h"
#include "runtime/executor.h"
#include "runtime/process/remote_link.h"
#include "runtime/queues/outbox.h"
#include "runtime/thread_name.h"
#include "transport/frame.h"

namespace tempest::runtime {
namespace {

using Clock = std::chrono::steady_clock;
using transport::AckMessage;

// Where an acker's replies go, ascending.
std::vector<int> SpoutTasks(const topology::TopologySpec& spec,
                            const topology::TaskLayout& layout) {
  std::vector<int> tasks;
  for (const topology::ComponentSpec& c : spec.components) {
    if (c.kind != topology::ComponentKind::kSpout) continue;
    const std::vector<int>& mine = layout.TasksOf(c.id);
    tasks.insert(tasks.end(), mine.begin(), mine.end());
  }
  std::sort(tasks.begin(), tasks.end());
  return tasks;
}

// An acker task (Storm's acker bolt): applies the ack messages routed to it (by root id) to its
// ledger and tells a tree's spout task when the tree completed or failed. Its replies never wait
// (Outbox::Destinations::replies), so the acker cannot be part of a backpressure cycle. Spouts
// track their own trees when their task id fits a root's lane (runtime/acking/ack_ids.h), so an
// acker only gets the trees of spout tasks beyond that.
// It ends once every spout and bolt task has sent it close: nothing can ack after that.
class AckerExecutor final : public Executor {
 public:
  explicit AckerExecutor(ExecutorSetup setup)
      : setup_(std::move(setup)),
        outbox_(setup_.task, setup_.queues, {{}, {}, SpoutTasks(*setup_.spec, *setup_.layout)},
                {setup_.batch_size, setup_.frame_bytes, setup_.link, setup_.streams}),
        rotate_every_(std::chrono::seconds(std::max(1, setup_.spec->config.message_timeout_secs))) {
    for (int t = 1; t <= setup_.layout->task_count(); ++t) {
      if (!setup_.layout->IsAcker(t)) upstream_.push_back(t);
    }
    is_spout_.assign(static_cast<std::size_t>(setup_.layout->task_count()) + 1, false);
    for (const topology::ComponentSpec& c : setup_.spec->components) {
      if (c.kind != topology::ComponentKind::kSpout) continue;
      for (int t : setup_.layout->TasksOf(c.id)) {
        is_spout_[static_cast<std::size_t>(t)] = true;
        ledger_.AddLane(LaneOfTask(t));
      }
    }
    closed_.assign(upstream_.size(), false);
  }

  void Run() override {
    NameThisThread(fmt::format("t{} acker", setup_.task));
    RunControl& control = *setup_.control;
    control.ArriveAndWaitForStart();
    if (!control.aborted()) Loop();
    setup_.metrics->finished.store(true);
    control.TaskFinished();
  }

 private:
  void Loop() {
    TaskQueue& inbox = *setup_.queues[setup_.task];
    std::vector<Envelope> envelopes;
    auto next_rotation = Clock::now() + rotate_every_;
    while (closed_count_ < upstream_.size()) {
      if (!inbox.PopAllUntil(envelopes, next_rotation)) return;  // force-stopped
      for (Envelope& e : envelopes) {
        switch (e.kind) {
          case Envelope::Kind::kAcks:
            for (const AckMessage& m : e.acks) Apply(e.from_task, m);
            break;
          case Envelope::Kind::kFrame:
            ApplyFrame(e);
            break;
          case Envelope::Kind::kClose:
            CloseFrom(e.from_task);
            break;
          case Envelope::Kind::kEndOfStream:
            break;  // only close matters here
          case Envelope::Kind::kTuples:
            Count("tuples", e.from_task);
            break;
        }
      }
      if (Clock::now() >= next_rotation) {
        ledger_.Rotate();
        next_rotation = Clock::now() + rotate_every_;
      }
      outbox_.Flush();
    }
    outbox_.Flush();
  }

  void ApplyFrame(const Envelope& e) {
    RemoteLink& link = *setup_.link;
    GiveCredit(link.worker_of(e.from_task), e.frame_tuples);
    std::string error;
    const transport::DecodeStatus status =
        transport::DecodeFrame(e.frame, *setup_.streams, decoded_, &error);
    if (status != transport::DecodeStatus::kOk || decoded_.kind != transport::FrameKind::kAcks) {
      link.DropFrame(fmt::format("acker task {}: {}", setup_.task,
                                 error.empty() ? "a tuple frame, not ack messages" : error));
      return;
    }
    for (const AckMessage& m : decoded_.acks) Apply(e.from_task, m);
  }

  // As BoltExecutor::GiveCredit: the senders of ack frames wait for this task's credit.
  void GiveCredit(int peer, uint32_t messages) {
    if (owed_.empty()) owed_.assign(setup_.link->workers(), 0);
    uint64_t& owed = owed_[peer];
    owed += messages;
    if (owed >= setup_.link->credit_batch()) {
      setup_.link->ReturnCredit(peer, setup_.task, owed);
      owed = 0;
    }
  }

  void Apply(int from_task, const AckMessage& m) {
    AckLedger::Result r;
    switch (m.type) {
      case AckMessage::Type::kInit:
        if (!IsSpoutTask(from_task))
          return Count("an init from a task that is not a spout", from_task);
        r = ledger_.Init(m.root, m.value, from_task);
        break;
      case AckMessage::Type::kAck:
        r = ledger_.Ack(m.root, m.value);
        break;
      case AckMessage::Type::kFail:
        r = ledger_.Fail(m.root);
        break;
      case AckMessage::Type::kReset:
        if (const int spout = ledger_.Reset(m.root); spout != 0) {
          outbox_.SendAck(spout, AckMessage::Type::kReset, m.root, 0);
        }
        return;
      case AckMessage::Type::kCompleted:
      case AckMessage::Type::kFailed:
      case AckMessage::Type::kFrameAcked:
      case AckMessage::Type::kFrameRows:
        return Count("a spout-bound message", from_task);
    }
    switch (r.outcome) {
      case AckLedger::Outcome::kPending:
        return;
      case AckLedger::Outcome::kCompleted:
        TaskMetrics::Bump(setup_.metrics->acked);
        outbox_.SendAck(r.spout_task, AckMessage::Type::kCompleted, m.root, 0);
        return;
      case AckLedger::Outcome::kFailed:
        TaskMetrics::Bump(setup_.metrics->failed);
        outbox_.SendAck(r.spout_task, AckMessage::Type::kFailed, m.root, 0);
        return;
    }
  }

  bool IsSpoutTask(int task) const {
    return task >= 0 && static_cast<std::size_t>(task) < is_spout_.size() &&
           is_spout_[static_cast<std::size_t>(task)];
  }

  void CloseFrom(int task) {
    const auto it = std::lower_bound(upstream_.begin(), upstream_.end(), task);
    if (it == upstream_.end() || *it != task) return Count("a close", task);
    const std::size_t i = static_cast<std::size_t>(it - upstream_.begin());
    if (!closed_[i]) {
      closed_[i] = true;
      ++closed_count_;
    }
  }

  // Something no task should send an acker: counted as an error, logged (rate-limited), ignored.
  void Count(const char* what, int from_task) {
    TaskMetrics::Bump(setup_.metrics->errors);
    const uint64_t n = setup_.metrics->errors.load(std::memory_order_relaxed);
    if (n <= 10 || n % 1000 == 0) {
      spdlog::error("acker task {}: ignored {} from task {} (error #{} of this task)", setup_.task,
                    what, from_task, n);
    }
  }

  ExecutorSetup setup_;
  Outbox outbox_;
  AckLedger ledger_;
  const Clock::duration rotate_every_;
  std::vector<int> upstream_;   // every spout and bolt task, ascending
  std::vector<bool> closed_;    // by position in upstream_
  std::vector<bool> is_spout_;  // by task id
  std::size_t closed_count_ = 0;
  transport::Frame decoded_;
  std::vector<uint64_t> owed_;
};

}  // namespace

std::unique_ptr<Executor> MakeAckerExecutor(ExecutorSetup setup) {
  return std::make_unique<AckerExecutor>(std::move(setup));
}

}  // namespace tempest::runtime

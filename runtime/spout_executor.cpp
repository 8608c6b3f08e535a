#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <span>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "runtime/acking/ack_ids.h"
#include "runtime/acking/spout_pending.h"
#include "runtime/process/remote_link.h"
#include "runtime/task_executor.h"
#include "topology/spout.h"
#include "topology/value_hash.h"
#include "transport/frame.h"

namespace tempest::runtime {

namespace {

using Clock = std::chrono::steady_clock;
using transport::AckMessage;

struct ValueHasher {
  std::size_t operator()(const topology::Value& v) const noexcept {
    return static_cast<std::size_t>(topology::StableHash(v));
  }
};

// Runs a spout task. With acker tasks, a tuple emitted with a message id starts a tuple tree: a
// fresh root id, one edge id per copy sent; the id waits in the pending slab until its tree
// completes or fails, or the message timeout expires it. The spout tracks the tree itself (the
// XOR of its edges and the bolts' acks, sent straight here) when its task id fits the root's
// lane; otherwise it sends an init to the tree's acker and waits for the acker's verdict. The
// spout's Ack/Fail are called here, on the spout's thread, between NextTuple calls. A failed
// message id is handed back to the spout (Fail, to replay it) after a back-off that doubles with
// its failures; past topology.spout.max.retries it is given up: acked to the spout, counted as
// dropped and logged, and emitted on the spout's failed_stream if it has one. A bounded spout sends
// end-of-stream when it is exhausted (so windows can flush), keeps replaying what fails, and sends
// close once nothing is pending or waiting to replay. While an emit waits for room downstream
// (backpressure), the spout still takes acks and expires its timeouts; what they decide reaches the
// spout (Ack/Fail) once NextTuple has returned.
class SpoutExecutor final : public TaskExecutor,
                            // public: SpoutRowEmitterOf crosses from one to the other
                            public topology::SpoutOutputCollector,
                            public topology::SpoutRowEmitter,
                            private AnchorSource {
 public:
  explicit SpoutExecutor(ExecutorSetup setup)
      : TaskExecutor(std::move(setup)),
        tracking_(!setup_.layout->AckerTaskIds().empty()),
        self_tracking_(tracking_ && setup_.spouts_track_trees && LaneOfTask(setup_.task) != 0),
        timeout_(std::chrono::seconds(std::max(1, setup_.spec->config.message_timeout_secs))),
        max_pending_(static_cast<std::size_t>(std::max(0, setup_.spec->config.max_spout_pending))),
        max_retries_(setup_.spec->config.max_spout_retries),
        retry_delay_(std::chrono::milliseconds(setup_.spec->config.spout_retry_delay_ms)),
        retry_max_delay_(std::chrono::milliseconds(setup_.spec->config.spout_retry_max_delay_ms)),
        failed_stream_(setup_.spec->Find(context_.GetThisComponentId())->failed_stream),
        ids_(static_cast<uint64_t>(setup_.task)) {
    const std::vector<int>& ackers = setup_.layout->AckerTaskIds();
    for (std::size_t i = 0; i < ackers.size(); ++i) {
      if (setup_.queues[ackers[i]] != nullptr) local_ackers_.push_back(i);
    }
    if (tracking_) emitter_.outbox().SetWhileBlocked([this] { WhileBlocked(); });
    if (self_tracking_) emitter_.outbox().KeepSentFrames();
  }

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
    TaskQueue& inbox = *setup_.queues[setup_.task];
    spout_->Activate();
    auto last_flush = Clock::now();
    next_rotation_ = Clock::now() + timeout_;
    int idle_streak = 0;
    uint64_t calls = 0;
    bool stopping = false;
    bool ended = false;  // end-of-stream sent
    bool active = true;  // as the spout was last told (Activate/Deactivate)
    for (;;) {
      // A cut-short run ends here: the trees still pending can no longer complete, and waiting
      // for their timeouts would hold the run up to twice topology.message.timeout.secs.
      if (control.aborted()) return;
      if (!retry_at_.empty()) ReplayDue();
      if (!stopping && control.stop_requested()) {
        if (active) spout_->Deactivate();
        stopping = true;
      }
      if (!stopping && control.active() != active) active = SwitchActive();
      const bool may_emit = !stopping && active && !pending_.full() &&
                            (max_pending_ == 0 || pending_.size() < max_pending_);
      // One clock read per few emits: a tree's emit time is off by at most a few calls.
      if (tracking_ && (result_was_idle_ || (calls & 15) == 0)) now_ = Clock::now();
      topology::NextResult result = topology::NextResult::kIdle;
      if (may_emit) {
        try {
          result = spout_->NextTuple();
        } catch (const std::exception& e) {
          Error("NextTuple threw", e.what());
        }
        AckEmitted();
        Settle();
      }
      if (!outbox.open()) return;  // force-stopped
      bool exhausted = false;
      result_was_idle_ = result != topology::NextResult::kEmitted;
      switch (result) {
        case topology::NextResult::kEmitted:
          idle_streak = 0;
          ++calls;
          // Flush on a short timer too, so a steady trickle is not held back by batching.
          if ((calls & 63) == 0 && Clock::now() - last_flush > std::chrono::milliseconds(1)) {
            outbox.Flush();
            last_flush = Clock::now();
            if (tracking_) Rotate();
          }
          break;
        case topology::NextResult::kIdle:
          outbox.Flush();
          last_flush = Clock::now();
          break;
        case topology::NextResult::kExhausted:
          exhausted = true;
          break;
      }
      if ((exhausted || stopping) && !ended) {
        outbox.SendEndOfStream(emitter_.router().DownstreamTasks());
        ended = true;
      }
      Settle();  // what the flushes above decided while they waited
      // Stopping drops the replays still waiting (they count as failed, not replayed).
      if ((exhausted || stopping) && pending_.empty() && (stopping || retry_at_.empty())) break;
      if (!tracking_) {
        if (result == topology::NextResult::kIdle) Backoff(++idle_streak);
        continue;
      }
      // Nothing to emit (idle, exhausted with trees pending, at max pending, stopping): wait
      // for the acker's replies, up to a short back-off while idle (new input may come).
      if (result != topology::NextResult::kEmitted) {
        outbox.Flush();
        // Deactivated, it waits as an idle spout does: an activation is seen within 1 ms.
        const bool idle = result == topology::NextResult::kIdle && (may_emit || !active);
        const auto until = idle ? Clock::now() + BackoffTime(++idle_streak) : next_rotation_;
        const auto next_retry = retry_at_.empty() ? until : retry_at_.begin()->first;
        Receive(inbox, std::min({until, next_rotation_, next_retry}));
        Rotate();
      } else if (inbox.MaybeNonEmpty()) {
        Receive(inbox, Clock::time_point::min());
      }
      Settle();
      if (!outbox.open()) return;
    }
    outbox.SendClose(CloseTargets());
  }

  // Tells the spout it is activated or deactivated, as the run control now says; the new state.
  bool SwitchActive() {
    const bool active = setup_.control->active();
    try {
      active ? spout_->Activate() : spout_->Deactivate();
    } catch (const std::exception& e) {
      Error(active ? "Activate threw" : "Deactivate threw", e.what());
    }
    return active;
  }

  // Downstream tasks and the ackers: everyone this task may have sent something to.
  std::vector<int> CloseTargets() const {
    std::vector<int> to = emitter_.router().DownstreamTasks();
    const std::vector<int>& ackers = setup_.layout->AckerTaskIds();
    to.insert(to.end(), ackers.begin(), ackers.end());
    return to;
  }

  static std::chrono::microseconds BackoffTime(int streak) {
    if (streak < 16) return std::chrono::microseconds(0);
    return std::chrono::microseconds(std::min(1000, 10 << std::min(streak - 16, 7)));
  }
  // Idle spouts yield first, then sleep up to 1 ms: cheap when busy, quiet when idle.
  static void Backoff(int streak) {
    const auto t = BackoffTime(streak);
    if (t.count() == 0) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(t);
    }
  }

  // Takes the acker's replies queued for this task, waiting for some until `until`.
  void Receive(TaskQueue& inbox, Clock::time_point until) {
    envelopes_.clear();
    if (!inbox.PopAllUntil(envelopes_, until)) return;
    received_at_ = Clock::now();  // one clock read for the whole batch of replies
    for (Envelope& e : envelopes_) {
      switch (e.kind) {
        case Envelope::Kind::kAcks:
          ApplyAll(e.from_task, e.acks);
          break;
        case Envelope::Kind::kFrame: {
          std::string error;
          if (transport::DecodeFrame(e.frame, *setup_.streams, decoded_, &error) !=
                  transport::DecodeStatus::kOk ||
              decoded_.kind != transport::FrameKind::kAcks) {
            setup_.link->DropFrame(fmt::format("spout task {}: {}", setup_.task,
                                               error.empty() ? "tuples sent to a spout" : error));
            break;
          }
          ApplyAll(decoded_.from_task, decoded_.acks);
          break;
        }
        case Envelope::Kind::kTuples:
        case Envelope::Kind::kEndOfStream:
        case Envelope::Kind::kClose:
          Error("input",
                fmt::format("task {} sent a spout something other than acks", e.from_task));
          break;
      }
    }
    envelopes_.clear();
    TaskMetrics::Store(metrics_.pending, pending_.size());
  }

  void ApplyAll(int from_task, std::span<const AckMessage> acks) {
    for (const AckMessage& m : acks) {
      if (m.type == AckMessage::Type::kFrameAcked || m.type == AckMessage::Type::kFrameRows) {
        ApplyFrameAck(from_task, m);
      } else {
        Apply(m);
      }
    }
  }

  // A bolt's frame ack: the acks of the frame's tuples it names are their edge ids, which this
  // task kept when it sent them (runtime/acking/sent_frames.h).
  void ApplyFrameAck(int from_task, const AckMessage& m) {
    SentFrames* sent = self_tracking_ ? emitter_.outbox().SentFramesTo(from_task) : nullptr;
    if (sent == nullptr) {
      Error("input",
            fmt::format("task {} sent a frame ack for frames this task does not keep", from_task));
      return;
    }
    if (m.type == AckMessage::Type::kFrameAcked) {
      sent->Start(m.root, m.value);
      return;
    }
    for (const SentFrames::Anchor& a : sent->Rows(m.root, m.value)) {
      Decide(a.root, pending_.Ack(a.root, a.edge));
    }
  }

  // A bolt's ack, fail or reset of a tree this task tracks itself, or an acker's verdict on one
  // it tracks.
  void Apply(const AckMessage& m) {
    switch (m.type) {
      case AckMessage::Type::kAck:
        if (self_tracking_) return Decide(m.root, pending_.Ack(m.root, m.value));
        break;
      case AckMessage::Type::kFail:
        if (self_tracking_) return Decide(m.root, pending_.Fail(m.root));
        break;
      case AckMessage::Type::kCompleted:
        return Decide(m.root, SpoutPending::Decision::kCompleted);
      case AckMessage::Type::kFailed:
        return Decide(m.root, SpoutPending::Decision::kFailed);
      case AckMessage::Type::kReset:
        pending_.Touch(m.root);
        return;
      case AckMessage::Type::kInit:
      case AckMessage::Type::kFrameAcked:
      case AckMessage::Type::kFrameRows:
        break;
    }
    Error("input", fmt::format("a spout got an ack message of type {} it does not take",
                               static_cast<int>(m.type)));
  }

  // A tree completed or failed: its message id waits for Settle. Late messages of a tree
  // decided before (a timeout, a fail) find no entry and are ignored.
  void Decide(uint64_t root, SpoutPending::Decision decision) {
    if (decision != SpoutPending::Decision::kCompleted &&
        decision != SpoutPending::Decision::kFailed) {
      return;
    }
    if (!pending_.TakeInto(root, taken_)) return;
    const bool acked = decision == SpoutPending::Decision::kCompleted;
    if (acked) {
      const auto us =
          std::chrono::duration_cast<std::chrono::microseconds>(received_at_ - taken_.emitted);
      metrics_.complete_latency.Record(static_cast<uint64_t>(std::max<int64_t>(0, us.count())));
    }
    Park(taken_, acked);
  }

  // Queues a decided tree's message id for Settle. An integer id (the usual kind) is queued as
  // it is; another moves to boxed_decided_. A queued id is then a plain record: no variant is
  // built, moved or destroyed per tree until the spout is handed its id (the spout's thread is
  // the bottleneck of an acked run).
  void Park(SpoutPending::Entry& entry, bool acked) {
    Decided& d = decided_.emplace_back();
    d.int_id = entry.int_id;
    d.acked = acked;
    d.boxed = 0;
    if (entry.boxed) {
      boxed_decided_.push_back(std::move(entry.boxed_id));
      d.boxed = static_cast<uint32_t>(boxed_decided_.size());
    }
  }

  // Times out the older generation of pending trees once a message timeout has passed.
  void Rotate() {
    const auto now = Clock::now();
    if (now < next_rotation_) return;
    next_rotation_ = now + timeout_;
    expired_.clear();
    pending_.Rotate(expired_);
    // A frame's trees have all timed out once it is older than two timeouts.
    if (self_tracking_) emitter_.outbox().ExpireSentFrames(now - 2 * timeout_);
    for (SpoutPending::Entry& e : expired_) {
      TaskMetrics::Bump(metrics_.timed_out);
      Park(e, false);
    }
    expired_.clear();
    TaskMetrics::Store(metrics_.pending, pending_.size());
  }

  // An emit waits for room downstream: replies and timeouts go on (settled after NextTuple).
  void WhileBlocked() {
    TaskQueue& inbox = *setup_.queues[setup_.task];
    if (inbox.MaybeNonEmpty()) Receive(inbox, Clock::time_point::min());
    Rotate();
  }

  // Hands the decided trees' message ids to the spout: acked, or failed (to replay or give up).
  // Called twice per NextTuple, mostly with nothing decided: that check is all that is inline.
  void Settle() {
    if (!decided_.empty()) SettleDecided();
  }
  void SettleDecided() {
    while (!decided_.empty()) {
      // Giving up emits on the failed stream, which may wait and decide more meanwhile.
      settling_.swap(decided_);
      boxed_settling_.swap(boxed_decided_);
      for (const Decided& d : settling_) {
        topology::Value id =
            d.boxed == 0 ? topology::Value(d.int_id) : std::move(boxed_settling_[d.boxed - 1]);
        if (d.acked) {
          Acked(id);
        } else {
          Failed(std::move(id));
        }
      }
      settling_.clear();
      boxed_settling_.clear();
    }
  }

  void Acked(const topology::Value& id) {
    TaskMetrics::Bump(metrics_.acked);
    if (!failures_.empty()) failures_.erase(id);
    if (!kept_.empty()) kept_.erase(id);
    try {
      spout_->Ack(id);
    } catch (const std::exception& e) {
      Error("Ack threw", e.what());
    }
  }

  // A failed message id: replayed after its back-off, or given up past the retry limit.
  void Failed(topology::Value&& id) {
    TaskMetrics::Bump(metrics_.failed);
    const int failures = ++failures_[id];
    if (max_retries_ >= 0 && failures > max_retries_) {
      GiveUp(std::move(id), failures);
      return;
    }
    const Clock::duration delay = RetryDelay(failures);
    if (delay == Clock::duration::zero()) {
      Replay(std::move(id));
    } else {
      retry_at_.emplace(Clock::now() + delay, std::move(id));
    }
  }

  // delay * 2^(failures - 1), at most the maximum.
  Clock::duration RetryDelay(int failures) const {
    Clock::duration delay = retry_delay_;
    for (int i = 1; i < failures && delay < retry_max_delay_; ++i) delay *= 2;
    return std::min(delay, retry_max_delay_);
  }

  void ReplayDue() {
    const auto now = Clock::now();
    while (!retry_at_.empty() && retry_at_.begin()->first <= now) {
      auto node = retry_at_.extract(retry_at_.begin());
      Replay(std::move(node.mapped()));
    }
  }

  // Hands the id back to the spout to emit again.
  void Replay(topology::Value&& id) {
    try {
      spout_->Fail(id);
    } catch (const std::exception& e) {
      Error("Fail threw", e.what());
    }
    failed_ids_.insert(std::move(id));
  }

  // The spout forgets the id (it is acked to it, as Storm's KafkaSpout commits what it gives
  // up); its values go to the failed stream, unanchored; the run counts it and ends with exit
  // status 1.
  void GiveUp(topology::Value&& id, int failures) {
    failures_.erase(id);
    metrics_.AddDropped("max_retries", 1);
    if (const auto kept = kept_.find(id); kept != kept_.end()) {
      topology::Values values = std::move(kept->second);
      kept_.erase(kept);
      try {
        emitter_.Emit(failed_stream_, -1, std::move(values));
      } catch (const std::exception& e) {
        Error("failed_stream emit", e.what());
      }
    }
    if (++given_up_ <= 10) {
      spdlog::warn(
          "{} task {}: message id {} failed {} times, past topology.spout.max.retries {}: given "
          "up{}",
          context_.GetThisComponentId(), setup_.task, id.ToString(), failures, max_retries_,
          given_up_ == 10 ? " (later ones are only counted)" : "");
    }
    try {
      spout_->Ack(id);
    } catch (const std::exception& e) {
      Error("Ack threw", e.what());
    }
  }

  // Acked at emit (no ackers, or nobody subscribes): on the spout's own thread after NextTuple.
  void AckEmitted() {
    if (to_ack_.empty()) return;
    for (topology::Value& id : to_ack_) Acked(id);
    to_ack_.clear();
  }

  void DoEmit(std::string_view stream, int direct_task, topology::Values&& values,
              topology::Value&& message_id) override {
    EmitTracked(
        std::move(message_id),
        [&](AnchorSource* anchors) {
          return emitter_.Emit(stream, direct_task, std::move(values), anchors);
        },
        [&] { return values; });
  }

  void EmitRow(std::string_view stream, const topology::RowRef& row,
               topology::Value message_id) override {
    EmitTracked(
        std::move(message_id),
        [&](AnchorSource* anchors) { return emitter_.EmitRow(stream, row, anchors); },
        [&] {
          topology::Values values;
          row.LoadValues(values);
          return values;
        });
  }

  // Sends a tuple (send(anchors) returns how many tasks it went to) and, if it has a message id,
  // tracks its tree. values() gives its fields, for a failed stream to keep.
  template <typename Send, typename GetValues>
  void EmitTracked(topology::Value&& message_id, Send send, GetValues values) {
    if (message_id.IsNull()) {
      send(nullptr);
      return;
    }
    if (!failed_ids_.empty()) {
      if (const auto it = failed_ids_.find(message_id); it != failed_ids_.end()) {
        failed_ids_.erase(it);
        TaskMetrics::Bump(metrics_.replayed);
      }
    }
    if (!tracking_) {
      send(nullptr);
      to_ack_.push_back(std::move(message_id));
      return;
    }
    // The values of a tracked tuple are kept only for a failed stream, to send it there if the
    // tuple is given up.
    if (!failed_stream_.empty()) kept_.insert_or_assign(message_id, values());
    root_ = pending_.Reserve(RootHighBits());  // never full: NextTuple is not called then
    xor_edges_ = 0;
    std::size_t sent = 0;
    try {
      sent = send(this);
    } catch (...) {
      pending_.Release(root_);
      if (!failed_stream_.empty()) kept_.erase(message_id);
      throw;
    }
    if (sent == 0) {
      pending_.Release(root_);
      to_ack_.push_back(std::move(message_id));  // nobody subscribes: the tree is complete
      return;
    }
    if (self_tracking_) {
      // The bolts' acks may have come in while the tuples were being sent.
      Decide(root_, pending_.Commit(root_, std::move(message_id), now_, xor_edges_));
    } else {
      pending_.Commit(root_, std::move(message_id), now_);
      emitter_.outbox().SendAck(setup_.layout->AckerOf(root_), AckMessage::Type::kInit, root_,
                                xor_edges_);
    }
    TaskMetrics::Store(metrics_.pending, pending_.size());
  }

  // The high bits of a new root (the low bits are its pending slot, runtime/acking/ack_ids.h): this
  // task's lane, then random bits chosen such that the root's acker (TaskLayout::AckerOf, the
  // grouping every task applies) runs in this process when one does: the init and the acker's
  // reply then never cross processes, only the bolts' acks do. The choice rotates over the local
  // ackers.
  uint64_t RootHighBits() {
    constexpr int kRandomBits = 64 - topology::TaskLayout::kAckerShift;
    static_assert(kRandomBits <= 32);
    const uint64_t lane = LaneOfTask(setup_.task);
    for (;;) {
      uint64_t random = ids_.Next() >> (64 - kRandomBits);
      if (!local_ackers_.empty() && !self_tracking_) {
        // 32-bit divisions (random has kRandomBits bits): this runs once per tracked emit.
        const auto count = static_cast<uint32_t>(setup_.layout->acker_count());
        const uint64_t k = local_ackers_[next_acker_];
        if (++next_acker_ == local_ackers_.size()) next_acker_ = 0;
        random = random - static_cast<uint32_t>(random) % count + k;
        if (random >= (uint64_t{1} << kRandomBits)) continue;
      }
      const uint64_t high = (random << kRootLaneBits) | lane;
      if (high != 0) return high;
    }
  }

  Outbox::AnchorList AnchorsFor(int task) override {
    anchor_.root = root_;
    // A frame to another worker derives its tuples' edges from its key (sent_frames.h).
    const uint64_t derived = self_tracking_ ? emitter_.outbox().DerivedEdgeFor(task) : 0;
    anchor_.edge = derived != 0 ? derived : ids_.Next();
    xor_edges_ ^= anchor_.edge;
    return Outbox::AnchorList(&anchor_, 1);
  }

  void ReportError(std::string_view message) override { Error("reported", std::string(message)); }
  void ReportGauge(std::string_view name, uint64_t value) override {
    metrics_.SetGauge(name, value);
  }

  const bool tracking_;
  // Its trees are tracked here, not by an acker: bolts ack straight to this task (its id is the
  // lane of its roots, runtime/acking/ack_ids.h), which saves a thread hop and a message each way.
  const bool self_tracking_;
  const Clock::duration timeout_;
  const std::size_t max_pending_;
  const int max_retries_;  // -1: no limit
  const Clock::duration retry_delay_, retry_max_delay_;
  const std::string failed_stream_;  // "" if none
  AckIds ids_;
  std::vector<uint64_t> local_ackers_;  // positions in AckerTaskIds() of this process's ackers
  Clock::time_point now_{};             // emit time of tracked tuples (refreshed every few calls)
  Clock::time_point received_at_{};     // when the batch of replies being applied was taken
  bool result_was_idle_ = true;
  std::size_t next_acker_ = 0;
  std::unique_ptr<topology::Spout> spout_;
  std::vector<topology::Value> to_ack_;
  SpoutPending pending_;
  Clock::time_point next_rotation_{};
  std::unordered_set<topology::Value, ValueHasher> failed_ids_;     // failed, not yet replayed
  std::unordered_map<topology::Value, int, ValueHasher> failures_;  // of ids not acked yet
  std::multimap<Clock::time_point, topology::Value> retry_at_;      // replays waiting
  std::unordered_map<topology::Value, topology::Values, ValueHasher> kept_;  // failed_stream only
  uint64_t given_up_ = 0;
  std::vector<SpoutPending::Entry> expired_;
  // Trees completed, failed or timed out whose spout has not been told yet (Settle): each id
  // is int_id, or boxed_decided_[boxed - 1] (boxed_settling_ once Settle has swapped them).
  struct Decided {
    int64_t int_id;
    uint32_t boxed;
    bool acked;
  };
  std::vector<Decided> decided_, settling_;
  std::vector<topology::Value> boxed_decided_, boxed_settling_;
  SpoutPending::Entry taken_;  // Decide's scratch entry
  std::vector<Envelope> envelopes_;
  transport::Frame decoded_;
  // The tree being emitted: its root, its anchor for the copy being sent, the XOR of its edges.
  uint64_t root_ = 0;
  topology::AckMeta::Anchor anchor_;
  uint64_t xor_edges_ = 0;
};

}  // namespace

std::unique_ptr<Executor> MakeSpoutExecutor(ExecutorSetup setup) {
  return std::make_unique<SpoutExecutor>(std::move(setup));
}

}  // namespace tempest::runtime

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "runtime/acking/ack_ids.h"
#include "runtime/emitter.h"
#include "runtime/process/remote_link.h"
#include "runtime/queues/chaining.h"
#include "runtime/task_executor.h"
#include "topology/bolt.h"
#include "transport/frame.h"

namespace tempest::runtime {
namespace {

using transport::AckMessage;

// Runs a bolt task. An input's end-of-stream from every upstream task flushes the bolt
// (OnEndOfStream) and is passed on; tuples may still follow (replays) until every upstream task
// has sent close, which ends the task. Emits anchored to tracked inputs get fresh edge ids that
// are XORed into the inputs' ack values; Ack/Fail/ResetTimeout send the ack protocol's messages
// to the acker of each tree the input belongs to. A chained task (runtime/queues/chaining.h) takes
// its input from its upstream's thread through Deliver; its own thread prepares it, runs its ticks
// and cleans it up.
class BoltExecutor final : public TaskExecutor,
                           // public: RowEmitterOf crosses from one to the other
                           public topology::OutputCollector,
                           public topology::RowEmitter,
                           private topology::BatchCollector,
                           private AnchorSource,
                           private ChainedInput {
 public:
  explicit BoltExecutor(ExecutorSetup setup)
      : TaskExecutor(std::move(setup)),
        upstream_(UpstreamTasks(*setup_.spec, *setup_.layout, setup_.task)),
        ended_(upstream_.size(), false),
        closed_(upstream_.size(), false),
        source_left_(SourceTaskCounts()),
        tracking_(!setup_.layout->AckerTaskIds().empty()),
        self_tracking_(SelfTrackingSpouts(setup_)),
        timeout_(std::chrono::seconds(std::max(1, setup_.spec->config.message_timeout_secs))),
        chained_(setup_.chains != nullptr && setup_.chains->upstream[setup_.task] != 0),
        ids_(static_cast<uint64_t>(setup_.task)) {
    if (chained_) setup_.chains->input[setup_.task] = this;
  }

 private:
  // Emitter::Emit calls AnchorsFor on this final class directly (not through AnchorSource).
  friend class runtime::Emitter;

  void Start() override {
    bolt_ = setup_.spec->Find(context_.GetThisComponentId())->bolt_factory();
    if (!bolt_) throw std::runtime_error("the bolt factory returned null");
    owning_ = dynamic_cast<topology::OwningBolt*>(bolt_.get());
    batch_ = dynamic_cast<topology::BatchBolt*>(bolt_.get());
    bolt_->Prepare(context_, *this);
  }
  const char* StartVerb() const override { return "prepare"; }
  void Finish() override {
    if (bolt_) bolt_->Cleanup();
  }

  void Loop() override {
    if (chained_) {
      ChainedLoop();
      return;
    }
    TaskQueue& inbox = *setup_.queues[setup_.task];
    Outbox& outbox = emitter_.outbox();
    std::vector<Envelope> envelopes;
    const std::chrono::milliseconds tick = bolt_->TickInterval();
    auto next_tick = std::chrono::steady_clock::now() + tick;
    while (closed_count_ < upstream_.size()) {
      const bool open =
          tick.count() > 0 ? inbox.PopAllUntil(envelopes, next_tick) : inbox.PopAll(envelopes);
      if (!open) break;
      for (Envelope& e : envelopes) {
        switch (e.kind) {
          case Envelope::Kind::kTuples:
            if (!ExecuteRows(e.rows, e.from_task, Stale(e))) return;
            break;
          case Envelope::Kind::kFrame:
            if (!ExecuteFrame(e)) return;
            break;
          case Envelope::Kind::kEndOfStream:
            EndOfStreamFrom(e.from_task);
            break;
          case Envelope::Kind::kClose:
            CloseFrom(e.from_task);
            break;
          case Envelope::Kind::kAcks:
            Error("input", fmt::format("task {} sent ack messages to a bolt", e.from_task));
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
    if (closed_count_ < upstream_.size()) return;  // force-stopped before the input ended
    End();
  }

  // The input has closed: flush if that has not happened yet (a bolt without inputs), and tell
  // downstream and the ackers that nothing more comes.
  void End() {
    if (!flushed_) Flush();
    std::vector<int> to = emitter_.router().DownstreamTasks();
    const std::vector<int>& ackers = setup_.layout->AckerTaskIds();
    to.insert(to.end(), ackers.begin(), ackers.end());
    emitter_.outbox().SendClose(to);
  }

  // A chained task's own thread: ticks (under the chain's lock, as Deliver runs) until Deliver
  // has taken the close and says so through this task's queue, or the run stops.
  void ChainedLoop() {
    TaskQueue& inbox = *setup_.queues[setup_.task];
    std::vector<Envelope> envelopes;
    const std::chrono::milliseconds tick = bolt_->TickInterval();
    auto next_tick = std::chrono::steady_clock::now() + tick;
    bool done = false;
    while (!done) {
      const bool open =
          tick.count() > 0 ? inbox.PopAllUntil(envelopes, next_tick) : inbox.PopAll(envelopes);
      if (!open) break;
      for (const Envelope& e : envelopes) {
        if (e.kind == Envelope::Kind::kClose && e.from_task == setup_.task) done = true;
      }
      if (!done && tick.count() > 0 && std::chrono::steady_clock::now() >= next_tick) {
        const std::lock_guard lock(chain_mu_);
        if (chain_open_) {
          try {
            bolt_->OnTick();
          } catch (const std::exception& e) {
            Error("OnTick threw", e.what());
          }
          emitter_.outbox().Flush();
        }
        next_tick = std::chrono::steady_clock::now() + tick;
      }
    }
    // Whatever the upstream still delivers (a stopped run) is dropped from here on: Finish
    // cleans the bolt up on this thread.
    const std::lock_guard lock(chain_mu_);
    chain_open_ = false;
  }

  // ChainedInput, on the upstream's thread.
  void Deliver(Envelope& e) override {
    const std::lock_guard lock(chain_mu_);
    if (!chain_open_) return;
    switch (e.kind) {
      case Envelope::Kind::kTuples:
        ExecuteRows(e.rows, e.from_task, false);
        return;
      case Envelope::Kind::kEndOfStream:
        EndOfStreamFrom(e.from_task);
        return;
      case Envelope::Kind::kClose:
        CloseFrom(e.from_task);
        if (closed_count_ < upstream_.size()) return;
        End();
        chain_open_ = false;
        {
          // Wakes this task's own thread, which then cleans up.
          Envelope done;
          done.kind = Envelope::Kind::kClose;
          done.from_task = setup_.task;
          setup_.queues[setup_.task]->Push(std::move(done));
        }
        return;
      case Envelope::Kind::kFrame:
      case Envelope::Kind::kAcks:
        break;
    }
    Error("input", fmt::format("task {} delivered a {} envelope to a chained task", e.from_task,
                               e.kind == Envelope::Kind::kFrame ? "frame" : "ack"));
  }
  void FlushOutput() override {
    const std::lock_guard lock(chain_mu_);
    if (chain_open_) emitter_.outbox().Flush();
  }

  // Every input has ended: windows and leftovers are emitted now, downstream learns it in turn.
  void Flush() {
    flushed_ = true;
    try {
      bolt_->OnEndOfStream();
    } catch (const std::exception& e) {
      Error("OnEndOfStream threw", e.what());
    }
    emitter_.outbox().SendEndOfStream(emitter_.router().DownstreamTasks());
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
    if (decoded_.kind != transport::FrameKind::kTuples) {
      link.DropFrame(fmt::format("task {}: ack messages sent to a bolt", setup_.task));
      return true;
    }
    const bool by_frame = AckedByFrame(decoded_.rows, decoded_.from_task);
    if (by_frame) {
      frame_rows_ = &decoded_.rows;
      frame_acked_.assign(decoded_.rows.size(), 0);
    }
    const bool ok = ExecuteRows(decoded_.rows, decoded_.from_task, Stale(e));
    if (by_frame) SendFrameAck(decoded_.from_task);
    return ok;
  }

  // Whether a frame from another worker is acked by a frame ack: it comes from a spout task that
  // tracks its own trees, and every tuple in it is one of its trees (the test the spout applied
  // when it kept the frame's anchors, runtime/acking/sent_frames.h). Its tuples acked without
  // children while it executes are then only marked, and named in one message at the end.
  bool AckedByFrame(const topology::RowBatch& rows, int from_task) const {
    if (!tracking_ || rows.empty() ||
        !std::binary_search(self_tracking_.begin(), self_tracking_.end(), from_task)) {
      return false;
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::span<const topology::AckMeta::Anchor> anchors = rows[i].anchors();
      if (anchors.size() != 1 || RootLane(anchors[0].root) != static_cast<uint32_t>(from_task)) {
        return false;
      }
    }
    return true;
  }
  // Marks row `i` of the frame being executed as acked without children; false if it was already
  // (a second ack then goes as a message, as it would have without frame acks).
  bool AckInFrame(std::size_t i) {
    if (frame_acked_[i] != 0) return false;
    frame_acked_[i] = 1;
    TaskMetrics::Bump(metrics_.acked);
    return true;
  }
  // The frame ack: the frame's first anchor, then each run of rows marked acked.
  void SendFrameAck(int spout) {
    const topology::AckMeta::Anchor first = (*frame_rows_)[0].anchors()[0];
    frame_rows_ = nullptr;
    Outbox& outbox = emitter_.outbox();
    outbox.SendAck(spout, AckMessage::Type::kFrameAcked, first.root, first.edge);
    const std::size_t n = frame_acked_.size();
    for (std::size_t i = 0; i < n;) {
      if (frame_acked_[i] == 0) {
        ++i;
        continue;
      }
      std::size_t end = i + 1;
      while (end < n && frame_acked_[end] != 0) ++end;
      outbox.SendAck(spout, AckMessage::Type::kFrameRows, i, end);
      i = end;
    }
  }

  // Runs the bolt on the rows: a batch bolt on all at once, another on each row as a Tuple (one,
  // refilled per row). False if the run was cut short (it stops between tuples, not after
  // everything already popped).
  bool ExecuteRows(const topology::RowBatch& rows, int from_task, bool stale) {
    const RunControl& control = *setup_.control;
    if (batch_ != nullptr && !stale) {
      if (control.aborted()) return false;
      TaskMetrics::Bump(metrics_.executed, rows.size());
      batch_from_task_ = from_task;
      const auto start = std::chrono::steady_clock::now();
      try {
        batch_->ExecuteBatch(rows, *this);
      } catch (const std::exception& e) {
        Error("ExecuteBatch threw", e.what());
      }
      if (!rows.empty()) RecordExecute(start, rows.size());
      since_flush_check_ += static_cast<uint32_t>(rows.size());
      if (since_flush_check_ >= kFlushCheckEvery) FlushIfDue();
      return true;
    }
    input_rows_ = &rows;
    // Rows are loaded one ahead of the row that runs. A bolt that reads a string just written
    // here stalls until the store reaches the cache (memcmp's masked loads never take a value
    // from a pending store; a copy of a few bytes written by two overlapping stores cannot
    // either): a fifth of a word count's counting thread. One row later, the stores are done.
    const std::size_t n = rows.size();
    if (n > 0) rows.Load(0, from_task, inputs_[0]);
    for (std::size_t i = 0; i < n; ++i) {
      if (control.aborted()) return false;
      topology::Tuple& t = inputs_[i & 1];
      if (i + 1 < n) rows.Load(i + 1, from_task, inputs_[(i + 1) & 1]);
      input_ = &t;
      input_row_ = i;
      ExecuteOrExpire(t, stale);
    }
    return true;
  }

  // Whether a batch waited in this task's queue longer than the message timeout: its tracked
  // tuples' trees have timed out at their spouts, or are about to. Executing them would only
  // make every later tuple wait as long, and the replays would queue behind them: an overloaded
  // topology would replay for ever instead of catching up.
  bool Stale(const Envelope& e) const {
    return tracking_ && e.queued_at != std::chrono::steady_clock::time_point{} &&
           std::chrono::steady_clock::now() - e.queued_at > timeout_;
  }

  // A stale tracked tuple is failed unexecuted (its spout replays it); the rest run.
  void ExecuteOrExpire(topology::Tuple& t, bool stale) {
    if (!stale || topology::TupleAccess::Ack(t).anchors.empty()) {
      Execute(t);
      return;
    }
    TaskMetrics::Bump(metrics_.timed_out);
    Fail(t);
    if (!warned_stale_) {
      warned_stale_ = true;
      spdlog::warn(
          "component '{}' task {}: tuples waited in its queue longer than "
          "topology.message.timeout.secs ({} s); they are failed unexecuted and replayed by their "
          "spouts (the topology is overloaded: topology.max.spout.pending bounds what is in "
          "flight)",
          context_.GetThisComponentId(), setup_.task, setup_.spec->config.message_timeout_secs);
    }
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

  // Position of `task` in upstream_, or -1 (logged) if it does not feed this task.
  int UpstreamIndex(int task, const char* what) {
    const auto it = std::lower_bound(upstream_.begin(), upstream_.end(), task);
    if (it == upstream_.end() || *it != task) {
      Error(what, fmt::format("from task {}, which does not feed this task", task));
      return -1;
    }
    return static_cast<int>(it - upstream_.begin());
  }

  // Per source component: how many of its tasks feed this one.
  std::map<std::string, std::size_t> SourceTaskCounts() const {
    std::map<std::string, std::size_t> out;
    for (int t : upstream_) ++out[setup_.layout->ComponentOf(t)];
    return out;
  }

  // End-of-stream counts once per upstream task: a restarted worker's peers send theirs again.
  void EndOfStreamFrom(int task) {
    const int i = UpstreamIndex(task, "end-of-stream");
    if (i < 0 || ended_[i]) return;
    ended_[i] = true;
    ++ended_count_;
    const std::string& component = setup_.layout->ComponentOf(task);
    if (--source_left_[component] == 0 && !flushed_) {
      try {
        bolt_->OnSourceEnded(component);
      } catch (const std::exception& e) {
        Error("OnSourceEnded threw", e.what());
      }
    }
    if (ended_count_ == upstream_.size() && !flushed_) Flush();
  }

  // A close implies the end-of-stream before it (sent first on the same channel).
  void CloseFrom(int task) {
    const int i = UpstreamIndex(task, "close");
    if (i < 0 || closed_[i]) return;
    EndOfStreamFrom(task);
    closed_[i] = true;
    ++closed_count_;
  }

  // The tuple is ours (an envelope's, or the decoded frame's until the next frame).
  void Execute(topology::Tuple& t) {
    TaskMetrics::Bump(metrics_.executed);
    const bool timed = ++since_sample_ == TaskMetrics::kExecuteSampleEvery;
    const auto start =
        timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    Run(t);
    if (timed) {
      since_sample_ = 0;
      RecordExecute(start, 1);
    }
  }
  // The time since `start`, per row of `rows`, into the execute latency histogram (ns).
  void RecordExecute(std::chrono::steady_clock::time_point start, std::size_t rows) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    metrics_.execute_latency.Record(static_cast<uint64_t>(ns) / rows);
  }
  [[gnu::always_inline]] void Run(topology::Tuple& t) {
    try {
      if (owning_ != nullptr) {
        owning_->ExecuteOwned(t);
      } else {
        bolt_->Execute(t);
      }
    } catch (const std::exception& e) {
      Error("Execute threw", fmt::format("{} (input {})", e.what(), t.ToString()));
      Fail(t);
    } catch (...) {
      Error("Execute threw", fmt::format("a non-standard exception (input {})", t.ToString()));
      Fail(t);
    }
    if (++since_flush_check_ == kFlushCheckEvery) FlushIfDue();
  }

  // A pop can hold thousands of tuples (a whole queue): a bolt working through them hands its
  // output on at least every millisecond, as a busy spout does, rather than only at the end.
  void FlushIfDue() {
    since_flush_check_ = 0;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_mid_pop_flush_ < std::chrono::milliseconds(1)) return;
    last_mid_pop_flush_ = now;
    emitter_.outbox().Flush();
  }

  void DoEmit(std::string_view stream, int direct_task, topology::Anchors anchors,
              topology::Values&& values) override {
    if (!tracking_ || anchors.empty()) {
      emitter_.Emit(stream, direct_task, std::move(values));
      return;
    }
    anchors_ = anchors;
    emitter_.Emit(stream, direct_task, std::move(values), this);
    anchors_ = {};
  }

  void EmitRows(std::string_view stream, std::size_t count, topology::RowFiller& filler) override {
    emitter_.EmitRows(stream, count, filler);
  }

  // Storm's anchoring: per copy sent, one new edge id per tracked anchor, XORed into that
  // anchor's ack value and into the copy's entry for each of the anchor's roots.
  // Many anchors (a window's tuples) are merged by sorting rather than by a quadratic search.
  Outbox::AnchorList AnchorsFor(int) override {
    // The usual emit: anchored to the one input being executed, of one tree.
    if (anchors_.size() == 1 && anchors_[0] != nullptr) {
      const topology::AckMeta& meta = topology::TupleAccess::Ack(*anchors_[0]);
      if (meta.anchors.size() == 1) {
        const uint64_t edge = ids_.Next();
        meta.ack_val ^= edge;
        one_anchor_ = {meta.anchors[0].root, edge};
        return Outbox::AnchorList(&one_anchor_, 1);
      }
    }
    return MergedAnchors();
  }
  // Out of line, so that the usual emit's path above saves no registers.
  [[gnu::noinline]] Outbox::AnchorList MergedAnchors() {
    out_anchors_.clear();
    const bool many = anchors_.size() > 8;
    for (const topology::Tuple* a : anchors_) {
      if (a == nullptr) continue;
      const topology::AckMeta& meta = topology::TupleAccess::Ack(*a);
      if (meta.anchors.empty()) continue;
      const uint64_t edge = ids_.Next();
      meta.ack_val ^= edge;
      for (const topology::AckMeta::Anchor& r : meta.anchors) {
        auto it = many ? out_anchors_.end()
                       : std::find_if(
                             out_anchors_.begin(), out_anchors_.end(),
                             [&](const topology::AckMeta::Anchor& o) { return o.root == r.root; });
        if (it == out_anchors_.end()) {
          out_anchors_.push_back({r.root, edge});
        } else {
          it->edge ^= edge;
        }
      }
    }
    if (many && out_anchors_.size() > 1) {
      std::sort(out_anchors_.begin(), out_anchors_.end(),
                [](const auto& x, const auto& y) { return x.root < y.root; });
      std::size_t w = 0;
      for (std::size_t i = 1; i < out_anchors_.size(); ++i) {
        if (out_anchors_[i].root == out_anchors_[w].root) {
          out_anchors_[w].edge ^= out_anchors_[i].edge;
        } else {
          out_anchors_[++w] = out_anchors_[i];
        }
      }
      out_anchors_.resize(w + 1);
    }
    return Outbox::AnchorList(out_anchors_.data(), out_anchors_.size());
  }

  // BatchCollector: anchoring to a row works as AnchorsFor does for one tracked input.
  uint64_t ForwardRow(std::string_view stream, const topology::RowRef& row) override {
    if (forward_stream_ < 0 || stream != forward_stream_name_) {
      forward_stream_ = emitter_.StreamIndexOf(stream);
      forward_stream_name_ = stream;
    }
    RowAnchors* anchors = AnchorsOf(row);
    emitter_.ForwardRow(forward_stream_, row, anchors);
    return anchors != nullptr ? anchors->ack_val : 0;
  }
  uint64_t EmitAnchored(std::string_view stream, const topology::RowRef& row,
                        topology::Values&& values) override {
    RowAnchors* anchors = AnchorsOf(row);
    emitter_.Emit(stream, -1, std::move(values), anchors);
    return anchors != nullptr ? anchors->ack_val : 0;
  }
  void ExecuteAsTuple(const topology::RowRef& row) override {
    row.Load(batch_from_task_, inputs_[0]);
    input_ = &inputs_[0];
    input_rows_ = &row.batch();
    input_row_ = row.index();
    Run(inputs_[0]);  // counted with its batch
  }
  void AckRow(const topology::RowRef& row, uint64_t ack_val) override {
    if (frame_rows_ == &row.batch() && ack_val == 0 && AckInFrame(row.index())) return;
    AckAnchors(row.anchors(), ack_val);
  }
  void AckRows(const topology::RowBatch& rows) override {
    if (frame_rows_ == &rows) {
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (!AckInFrame(i)) AckAnchors(rows[i].anchors(), 0);
      }
      return;
    }
    if (!rows.has_anchors()) {
      TaskMetrics::Bump(metrics_.acked, rows.size());
      return;
    }
    // AckAnchors' loop, counted once per batch: calling it per row costs a NullBolt's thread ~20
    // instructions per tuple (callgrind, word count's sink).
    TaskMetrics::Bump(metrics_.acked, rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (const topology::AckMeta::Anchor& a : rows[i].anchors()) {
        SendToAcker(AckMessage::Type::kAck, a.root, a.edge);
      }
    }
  }
  void AckUntracked(std::size_t n) override { TaskMetrics::Bump(metrics_.acked, n); }
  void FailRow(const topology::RowRef& row) override { FailAnchors(row.anchors()); }
  int BatchSource() const noexcept override { return batch_from_task_; }
  // Per copy of a forwarded row: one new edge id, for each of the row's roots.
  struct RowAnchors final : AnchorSource {
    explicit RowAnchors(AckIds& ids) : ids(ids) {}
    Outbox::AnchorList AnchorsFor(int) override {
      const uint64_t edge = ids.Next();
      ack_val ^= edge;
      out.clear();
      for (const topology::AckMeta::Anchor& r : roots) out.push_back({r.root, edge});
      return Outbox::AnchorList(out.data(), out.size());
    }
    AckIds& ids;
    std::span<const topology::AckMeta::Anchor> roots;
    uint64_t ack_val = 0;
    boost::container::small_vector<topology::AckMeta::Anchor, 4> out;
  };
  // The anchoring of an emit to `row`, reset; null when the row is untracked.
  RowAnchors* AnchorsOf(const topology::RowRef& row) {
    if (!tracking_ || row.anchors().empty()) return nullptr;
    row_anchors_.roots = row.anchors();
    row_anchors_.ack_val = 0;
    return &row_anchors_;
  }

  void Ack(const topology::Tuple& input) override {
    const topology::AckMeta& meta = topology::TupleAccess::Ack(input);
    // The input being executed, a row of a frame acked by a frame ack (an ack value of 0: no
    // anchored children).
    if (frame_rows_ != nullptr && input_rows_ == frame_rows_ && &input == input_ &&
        meta.ack_val == 0 && AckInFrame(input_row_)) {
      return;
    }
    AckAnchors({meta.anchors.data(), meta.anchors.size()}, meta.ack_val);
  }
  void Fail(const topology::Tuple& input) override {
    const auto& anchors = topology::TupleAccess::Ack(input).anchors;
    FailAnchors({anchors.data(), anchors.size()});
  }
  // What acking / failing an input (a tuple or a row) with these anchors sends. The usual input,
  // of one tree, is folded into its last child without saving a register: a message, or a loop
  // over many anchors, is out of line.
  void AckAnchors(std::span<const topology::AckMeta::Anchor> anchors, uint64_t ack_val) {
    TaskMetrics::Bump(metrics_.acked);
    if (anchors.size() == 1) [[likely]] {
      const uint64_t value = ack_val ^ anchors[0].edge;
      if (emitter_.outbox().FoldAck(anchors[0].root, value)) return;
      SendAckOf(anchors[0].root, value);
      return;
    }
    SendAcksOf(anchors, ack_val);
  }
  [[gnu::noinline]] void SendAckOf(uint64_t root, uint64_t value) {
    SendToAcker(AckMessage::Type::kAck, root, value);
  }
  [[gnu::noinline]] void SendAcksOf(std::span<const topology::AckMeta::Anchor> anchors,
                                    uint64_t ack_val) {
    for (const topology::AckMeta::Anchor& a : anchors) {
      SendToAcker(AckMessage::Type::kAck, a.root, ack_val ^ a.edge);
    }
  }
  void FailAnchors(std::span<const topology::AckMeta::Anchor> anchors) {
    TaskMetrics::Bump(metrics_.failed);
    for (const topology::AckMeta::Anchor& a : anchors) {
      SendToAcker(AckMessage::Type::kFail, a.root, 0);
    }
  }
  void ResetTimeout(const topology::Tuple& input) override {
    for (const topology::AckMeta::Anchor& a : topology::TupleAccess::Ack(input).anchors) {
      SendToAcker(AckMessage::Type::kReset, a.root, 0);
    }
  }
  [[gnu::always_inline]] void SendToAcker(AckMessage::Type type, uint64_t root, uint64_t value) {
    if (tracking_) emitter_.outbox().SendAck(TrackerOf(root), type, root, value);
  }
  // The spout task of the root's lane when it tracks its own trees, else the root's acker. The
  // last lane's answer is kept: a bolt's inputs mostly come from one spout task at a time.
  int TrackerOf(uint64_t root) {
    const uint32_t lane = RootLane(root);
    if (lane != last_lane_) {
      last_lane_ = lane;
      last_lane_spout_ =
          std::binary_search(self_tracking_.begin(), self_tracking_.end(), static_cast<int>(lane))
              ? static_cast<int>(lane)
              : 0;
    }
    return last_lane_spout_ != 0 ? last_lane_spout_ : setup_.layout->AckerOf(root);
  }
  void ReportError(std::string_view message) override { Error("reported", std::string(message)); }
  using topology::OutputCollector::ReportDropped;
  void ReportDropped(std::string_view cause, uint64_t count) override {
    metrics_.AddDropped(cause, count);
  }
  void ReportGauge(std::string_view name, uint64_t value) override {
    metrics_.SetGauge(name, value);
  }

  const std::vector<int> upstream_;                 // ascending
  std::vector<bool> ended_;                         // by position in upstream_: end-of-stream came
  std::vector<bool> closed_;                        // by position in upstream_: close came
  std::map<std::string, std::size_t> source_left_;  // per source component: tasks not ended
  std::size_t ended_count_ = 0;
  std::size_t closed_count_ = 0;
  bool flushed_ = false;
  static constexpr uint32_t kFlushCheckEvery = 64;  // tuples between clock reads
  uint32_t since_flush_check_ = 0;
  uint32_t since_sample_ = 0;  // tuples since Execute was last timed
  std::chrono::steady_clock::time_point last_mid_pop_flush_{};
  const bool tracking_;
  const std::vector<int> self_tracking_;  // SelfTrackingSpouts
  uint32_t last_lane_ = 0;                // TrackerOf's last lane, and its spout (0: none)
  int last_lane_spout_ = 0;
  const std::chrono::steady_clock::duration timeout_;  // topology.message.timeout.secs
  bool warned_stale_ = false;
  const bool chained_;      // runs on its upstream's thread
  std::mutex chain_mu_;     // chained: serialises Deliver, FlushOutput, ticks and the end
  bool chain_open_ = true;  // chained: Deliver still runs the bolt
  AckIds ids_;
  topology::Anchors anchors_;  // of the emit being routed
  boost::container::small_vector<topology::AckMeta::Anchor, 4> out_anchors_;
  topology::AckMeta::Anchor one_anchor_{};  // AnchorsFor's answer for one input of one tree
  std::unique_ptr<topology::Bolt> bolt_;
  topology::OwningBolt* owning_ = nullptr;  // bolt_, when it keeps its inputs
  topology::BatchBolt* batch_ = nullptr;    // bolt_, when it takes a batch at a time
  RowAnchors row_anchors_{ids_};
  int batch_from_task_ = -1;         // the sender of the batch ExecuteBatch runs on
  std::string forward_stream_name_;  // ForwardRow's last stream, and its index
  int forward_stream_ = -1;
  transport::Frame decoded_;   // reused for every remote batch
  topology::Tuple inputs_[2];  // rows as Tuples: the one being executed, and the next one
  const topology::Tuple* input_ = nullptr;          // the one being executed
  const topology::RowBatch* input_rows_ = nullptr;  // input_'s batch, and its row there
  std::size_t input_row_ = 0;
  // While a frame acked by a frame ack executes (AckedByFrame): its rows, and which were acked.
  const topology::RowBatch* frame_rows_ = nullptr;
  std::vector<uint8_t> frame_acked_;
  std::vector<uint64_t> owed_;  // by worker: tuples taken, credit not yet given back
};

}  // namespace

std::unique_ptr<Executor> MakeBoltExecutor(ExecutorSetup setup) {
  return std::make_unique<BoltExecutor>(std::move(setup));
}

}  // namespace tempest::runtime

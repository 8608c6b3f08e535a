#include "bolts/windowing/windowed_bolt.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "bolts/windowing/batch_input.h"
#include "bolts/windowing/event_time_input.h"
#include "bolts/windowing/pack_into.h"
#include "bolts/windowing/packed_windowed_bolt.h"
#include "bolts/windowing/window_manager.h"
#include "topology/saturating.h"

namespace tempest::bolts {

namespace {

using topology::Anchors;
using topology::Tuple;

// Storm's WindowedBoltExecutor: feeds the WindowManager, drives time and watermarks from the
// task's ticks, acks tuples as they leave the window and anchors the window bolt's emits. It is
// also the collector the windowed bolt sees. BoltT: WindowedBolt (the window holds Tuples) or
// PackedWindowedBolt (it holds packed rows in an arena, and takes the runtime's batches as a
// BatchBolt, packing each row from its cells).
template <class BoltT>
class WindowedBoltAdapter final
    : public std::conditional_t<std::is_same_v<BoltT, PackedWindowedBolt>, topology::BatchBolt,
                                topology::OwningBolt>,
      // public: RowEmitterOf crosses from the collector to the RowEmitter
      public std::conditional_t<std::is_same_v<BoltT, PackedWindowedBolt>, PackedWindowCollector,
                                topology::OutputCollector>,
      public topology::RowEmitter {
  static constexpr bool kPacked = std::is_same_v<BoltT, PackedWindowedBolt>;
  using Held = std::conditional_t<kPacked, HeldRow, Tuple>;

 public:
  WindowedBoltAdapter(std::unique_ptr<BoltT> bolt, WindowConfig config,
                      topology::Fields late_fields, std::vector<LateRoute> routes,
                      WindowClock clock)
      : bolt_(std::move(bolt)),
        config_(std::move(config)),
        policy_(WindowPolicy::From(config_)),
        late_fields_(std::move(late_fields)),
        routes_(std::move(routes)),
        clock_(std::move(clock)),
        count_only_(policy_.trigger == TriggerKind::kCount &&
                    policy_.eviction == EvictionKind::kCount) {}

  void Prepare(const topology::TopologyContext& context,
               topology::OutputCollector& collector) override {
    out_ = &collector;
    out_rows_ = topology::RowEmitterOf(collector);
    ValidateWindowFitsTopology(config_, context.GetTopologyConfig());
    component_ = context.GetThisComponentId();
    task_ = context.GetThisTaskId();
    budget_mb_ = context.GetTopologyConfig().window_memory_budget_mb;
    now_ = clock_();
    if (config_.event_time()) {
      event_time_.emplace(
          context, collector, clock_, now_,
          WatermarkSettings{config_.lag_ms, config_.watermark_interval_ms, config_.idle_timeout_ms},
          [this](const topology::GlobalStreamId& id) { return RouteOf(id); },
          [this](int64_t watermark) { manager_->OnWatermark(watermark); });
    }
    WindowPolicy policy = policy_;
    if constexpr (kPacked) {
      policy.keep_expired = false;
      policy.list_new = false;
      policy.list_copies = true;
    } else {
      policy.keep_expired = bolt_->ReadsExpired();
    }
    manager_.emplace(
        policy, [this](const typename Manager::Activation& a) { Activate(a); },
        [this](Held& h) { Release(h); });
    // The schedule starts a millisecond early, so that the first window (start, start + slide]
    // holds what arrives within Prepare's own millisecond.
    manager_->Start(now_ - 1);
    bolt_->Prepare(context, *this);
  }

  void Execute(const Tuple& input) override { Handle(input, nullptr); }
  // The runtime's call: the input is moved into the window instead of copied.
  void ExecuteOwned(Tuple& input) override { Handle(input, &input); }

  // `owned`: the same tuple as `input`, ours to move from once nothing else reads it.
  void Handle(const Tuple& input, Tuple* owned) {
    if (flushed_) {
      ExecuteAfterFlush(input);
      return;
    }
    Take(input, [&](int64_t ts) { Keep(input, owned, ts); });
    ReportIfFired();
  }

  // The runtime's batch (packed windows only, hence no `override`): each row is packed from its
  // cells, without a Tuple. A replay after the flush goes the tuple way.
  void ExecuteBatch(const topology::RowBatch& rows, topology::BatchCollector& out) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const topology::RowRef row = rows[i];
      if (flushed_) {
        out.ExecuteAsTuple(row);
        continue;
      }
      const BatchInput in{row, out};
      Take(in, [&](int64_t ts) { KeepRow(in, ts); });
    }
    ReportIfFired();
  }

  // An input (a tuple or a batch row) goes into the window by keep(ts), is late, or has no
  // timestamp.
  template <class Input, class KeepAt>
  void Take(const Input& in, KeepAt keep) {
    if (!config_.event_time()) {
      // Count windows never look at arrival times: the clock is read only when one fires.
      keep(count_only_ ? 0 : manager_->ArrivalTime(clock_()));
      return;
    }
    event_time_->Take(in, keep);
  }

  std::chrono::milliseconds TickInterval() const override {
    int64_t period = 0;
    auto consider = [&](int64_t p) {
      if (p > 0 && (period == 0 || p < period)) period = p;
    };
    if (policy_.trigger == TriggerKind::kTime) consider(policy_.slide);
    if (config_.event_time()) {
      consider(config_.watermark_interval_ms);
      consider(config_.idle_timeout_ms);
    }
    // Coarse periods still get a prompt look: a window is due at its instant, not a period late.
    if (period > 100) period = 100;
    return std::chrono::milliseconds(period);
  }

  void OnTick() override {
    now_ = clock_();
    if (flushed_) return;
    manager_->OnTime(now_);
    if (event_time_) event_time_->OnTick(now_);
    ReportState(now_);
  }

  void OnSourceEnded(const std::string& component) override {
    if (event_time_ && !flushed_) event_time_->OnSourceEnded(component);
    ReportIfFired();
  }

  void OnEndOfStream() override {
    if (!flushed_) {
      manager_->Flush(clock_());
      manager_->ExpireAll();
      flushed_ = true;
      if (event_time_) event_time_->OnEndOfStream();
      ReportState(clock_());  // a finished run shows the final values
    }
    bolt_->OnEndOfStream();
  }

  void Cleanup() override { bolt_->Cleanup(); }

  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override {
    bolt_->DeclareOutputFields(declarer);
    std::vector<std::string> declared;
    if (!config_.late_stream.empty()) {
      declarer.DeclareStream(config_.late_stream, late_fields_);
      declared.push_back(config_.late_stream);
    }
    for (const LateRoute& r : routes_) {
      if (std::find(declared.begin(), declared.end(), r.stream) != declared.end()) continue;
      declarer.DeclareStream(r.stream, r.fields);
      declared.push_back(r.stream);
    }
  }

 private:
  using Manager = WindowManager<Held>;

  // Into the window: packed, or moved when the runtime handed it over, else copied.
  void Keep(const Tuple& input, Tuple* owned, int64_t ts) {
    if constexpr (kPacked) {
      (void)owned;
      manager_->Add(PackRow(input, input.GetSourceTask(), Tracked(input)), ts);
    } else if (owned != nullptr) {
      manager_->Add(std::move(*owned), ts);
    } else {
      manager_->Add(input, ts);
    }
    Kept();
  }
  void KeepRow(const BatchInput& in, int64_t ts) {
    if constexpr (kPacked) {
      manager_->Add(PackRow(in.row, in.source_task(), !in.row.anchors().empty()), ts);
    }
    Kept();
  }
  void Kept() {
    if (++kept_ % kMemoryCheckEvery == 0) CheckMemory();
  }
  static bool Tracked(const Tuple& t) noexcept {
    return !topology::TupleAccess::Ack(t).anchors.empty();
  }

  // Warns once when the window holds more than topology.window.memory.budget.mb.
  void CheckMemory() {
    if (memory_warned_ || budget_mb_ == 0) return;
    const std::size_t rows = manager_->size();
    // Packed: the arena's chunks; tuples: their own size and at least a packed row's worth of
    // values (strings beyond that are not counted).
    const std::size_t bytes =
        kPacked ? arena_.chunks_in_use() * RowArena::kChunkBytes + rows * sizeof(Held)
                : rows * (sizeof(Tuple) + static_cast<std::size_t>(kMinHeldRowBytes));
    if (bytes <= static_cast<std::size_t>(budget_mb_) << 20) return;
    memory_warned_ = true;
    spdlog::warn(
        "component '{}' task {}: its window holds {} tuples, about {} MiB, more than "
        "topology.window.memory.budget.mb {}; it may run out of memory",
        component_, task_, rows, bytes >> 20, budget_mb_);
  }

  // The gauges (docs/metrics.md): the rows the window holds and, with event time, the watermark.
  // On ticks, after an input or batch that fired a window, and at the end; not per tuple, as
  // ReportGauge takes a lock.
  void ReportState(int64_t now) {
    fired_ = false;
    out_->ReportGauge("window rows", manager_->size());
    if (event_time_) event_time_->ReportWatermark(now);
  }
  void ReportIfFired() {
    if (fired_) ReportState(clock_());
  }

  // The late stream of an input: its route's, else the bolt-level one ("" if none).
  EventTimeRoute RouteOf(const topology::GlobalStreamId& id) const {
    for (const LateRoute& r : routes_) {
      if (r.input == (r.by_stream ? id.stream : id.component)) {
        return {config_.timestamp_field, r.stream};
      }
    }
    return {config_.timestamp_field, config_.late_stream};
  }

  void Activate(const typename Manager::Activation& a) {
    fired_ = true;
    std::optional<int64_t> start;
    if (!config_.length.is_count())
      start = topology::SaturatingSub(a.reference, config_.length.value);
    if (event_time_ && policy_.trigger == TriggerKind::kWatermarkTime && start) {
      event_time_->CloseThrough(ClosedThrough(a.reference));
    }
    const int64_t end = count_only_ ? clock_() : a.reference;
    if constexpr (kPacked) {
      RunWindow(PackedWindow(a.copies, arena_, origins_, start, end));
    } else {
      RunWindow(TupleWindow(a.events, a.new_events, a.expired, start, end));
    }
  }

  // The latest time no window after the one ending at `end` holds: a tuple at or below it that
  // arrives now is late (at the watermark too), as it can no longer be in any window.
  int64_t ClosedThrough(int64_t end) const {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    if (end == kMax) return kMax;  // the last window there is
    const int64_t next_start =
        topology::SaturatingSub(topology::SaturatingAdd(end, policy_.slide), policy_.length);
    return std::min(end, next_start);
  }

  template <class Window>
  void RunWindow(const Window& window) {
    window_ = window.Get();
    try {
      bolt_->Execute(window);
    } catch (const std::exception& e) {
      out_->ReportError(fmt::format("Execute(window) threw: {}; its {} tuples will fail", e.what(),
                                    window.Get().size()));
      for (const auto& h : window.Get()) MarkFailed(Deref(h));
    }
    window_ = {};
  }

  // A replay after the flush: it is a window of its own at once.
  void ExecuteAfterFlush(const Tuple& input) {
    int64_t end = clock_();
    if (config_.event_time()) {
      if (!event_time_->Timestamp(input, end)) return;
    }
    std::optional<int64_t> start;
    if (!config_.length.is_count()) start = topology::SaturatingSub(end, config_.length.value);
    if constexpr (kPacked) {
      HeldRow row = PackRow(input, input.GetSourceTask(), Tracked(input));
      const HeldRow one[] = {row};
      RunWindow(PackedWindow(one, arena_, origins_, start, end));
      Release(row);
    } else {
      const Tuple* one[] = {&input};
      RunWindow(TupleWindow(one, one, {}, start, end));
      Release(input);
    }
  }

  // A packed row leaves the window: acked or failed through a Tuple holding its ack metadata,
  // then its bytes go back to the arena.
  void Release(HeldRow row) {
    if (tracked_rows_ == 0) {
      // No held row has anchors (acking off): this one has nothing to read.
      topology::AckMeta& meta = topology::TupleAccess::MutableAck(released_);
      meta.anchors.clear();
      meta.ack_val = 0;
      out_->Ack(released_);
      arena_.Release(row);
      return;
    }
    const PackedRow r = PackedRow::Parse(arena_.Data(row));
    r.LoadAck(topology::TupleAccess::MutableAck(released_));
    if (r.anchors > 0) --tracked_rows_;
    uint64_t root = 0;
    const auto it = failed_.empty() || !r.FirstRoot(root)
                        ? failed_.end()
                        : std::find(failed_.begin(), failed_.end(), RootKey(root));
    if (it != failed_.end()) {
      failed_.erase(it);
      out_->Fail(released_);
    } else {
      out_->Ack(released_);
    }
    arena_.Release(row);
  }

  // A tuple leaves the window: acked, or failed if the bolt failed it.
  void Release(const Tuple& t) {
    const topology::AckMeta& meta = topology::TupleAccess::Ack(t);
    if (!failed_.empty() && !meta.anchors.empty()) {
      const auto it = std::find(failed_.begin(), failed_.end(), meta.anchors.front());
      if (it != failed_.end()) {
        failed_.erase(it);
        out_->Fail(t);
        return;
      }
    }
    out_->Ack(t);
  }

  static const Tuple& Deref(const Tuple* t) noexcept { return *t; }
  static const HeldRow& Deref(const HeldRow& r) noexcept { return r; }

  // A held tuple is moved between containers, so it is recognised by its first (root, edge).
  void MarkFailed(const Tuple& t) {
    const topology::AckMeta& meta = topology::TupleAccess::Ack(t);
    if (meta.anchors.empty()) return;
    MarkFailed(meta.anchors.front());
  }
  // A packed row's pending word changes as the bolt emits, so it is recognised by its root.
  void MarkFailed(const HeldRow& row) {
    uint64_t root = 0;
    if (PackedRow::Parse(arena_.Data(row)).FirstRoot(root)) MarkFailed(RootKey(root));
  }
  static topology::AckMeta::Anchor RootKey(uint64_t root) noexcept { return {root, 0}; }
  void MarkFailed(const topology::AckMeta::Anchor& key) {
    if (std::find(failed_.begin(), failed_.end(), key) == failed_.end()) failed_.push_back(key);
  }

  // ---- Packed rows.

  // The origin of a row of `fields` fields on `schema` from `task`.
  uint32_t OriginOf(const topology::StreamSchema* schema, int task, std::size_t fields) {
    auto same = [&](const RowOrigin& o) { return o.schema == schema && o.task == task; };
    if (last_origin_ < origins_.size() && same(origins_[last_origin_])) return last_origin_;
    const auto at = static_cast<std::size_t>(std::find_if(origins_.begin(), origins_.end(), same) -
                                             origins_.begin());
    if (at == origins_.size()) {
      origins_.push_back({schema, task});
      if constexpr (kPacked) {
        std::vector<uint8_t> read = bolt_->FieldsRead(*schema);
        // All fields read, or a mask that does not fit the tuples: pack everything.
        if (std::find(read.begin(), read.end(), 0) == read.end() || read.size() != fields) {
          read.clear();
        }
        fields_read_.push_back(std::move(read));
      }
    }
    last_origin_ = static_cast<uint32_t>(at);
    return last_origin_;
  }

  // `source`: a Tuple, or a batch row, sent by `task`.
  template <class Source>
  HeldRow PackRow(const Source& source, int task, bool tracked) {
    const uint32_t origin = OriginOf(source.schema(), task, source.size());
    const std::vector<uint8_t>& fields = fields_read_[origin];
    const uint8_t* read = fields.size() == source.size() ? fields.data() : nullptr;
    const HeldRow row = PackInto(arena_, source, origin, read);
    if (tracked) ++tracked_rows_;
    return row;
  }

  // An emit anchored to held rows: each tracked row's ack metadata goes into a Tuple the
  // runtime anchors to, and the ack value it XORed in goes back into the row. Rows without
  // anchors (acking off) cost only a look at their header.
  void EmitAnchoredTo(std::string_view stream, int direct_task, std::span<const HeldRow> rows,
                      topology::Values&& values) {
    anchor_rows_.clear();
    // With no tracked row held (acking off), the rows' headers are not even looked at: a
    // joined row's bytes are far from the join's sequential reads, a cache miss per output.
    for (const HeldRow& h : tracked_rows_ > 0 ? rows : std::span<const HeldRow>()) {
      const PackedRow r = PackedRow::Parse(arena_.Data(h));
      if (r.anchors > 0) anchor_rows_.push_back(r);
    }
    if (anchor_rows_.empty()) {
      topology::OutputCollector::Forward(*out_, stream, direct_task, Anchors(), std::move(values));
      return;
    }
    while (anchor_tuples_.size() < anchor_rows_.size()) anchor_tuples_.emplace_back();
    anchor_ptrs_.clear();
    for (std::size_t i = 0; i < anchor_rows_.size(); ++i) {
      anchor_rows_[i].LoadAck(topology::TupleAccess::MutableAck(anchor_tuples_[i]));
      anchor_ptrs_.push_back(&anchor_tuples_[i]);
    }
    topology::OutputCollector::Forward(*out_, stream, direct_task,
                                       Anchors(anchor_ptrs_.data(), anchor_ptrs_.size()),
                                       std::move(values));
    for (std::size_t i = 0; i < anchor_rows_.size(); ++i) {
      anchor_rows_[i].FoldAckVal(topology::TupleAccess::Ack(anchor_tuples_[i]).ack_val);
    }
  }

  // ---- The collector the windowed bolt sees.

  // PackedWindowCollector's (an override in the packed adapter only, hence no `override`).
  void EmitAnchoredToRows(std::string_view stream, std::span<const HeldRow> rows,
                          topology::Values&& values) {
    EmitAnchoredTo(stream, -1, rows, std::move(values));
  }

  void EmitRowsAnchoredToRows(std::string_view stream, std::span<const HeldRow> common,
                              std::span<const HeldRow> each, topology::RowFiller& filler) {
    if (tracked_rows_ == 0) {
      topology::EmitRows(*out_, out_rows_, stream, each.size(), filler);
      return;
    }
    for (std::size_t i = 0; i < each.size(); ++i) {
      row_anchors_.assign(common.begin(), common.end());
      row_anchors_.push_back(each[i]);
      topology::Values values;
      filler.Fill(i, values);
      EmitAnchoredTo(stream, -1, row_anchors_, std::move(values));
    }
  }

  // Unanchored rows are anchored to the window, as DoEmit's are: in one call when nothing to
  // anchor to is tracked.
  void EmitRows(std::string_view stream, std::size_t count, topology::RowFiller& filler) override {
    if (kPacked ? tracked_rows_ == 0 : window_.empty()) {
      topology::EmitRows(*out_, out_rows_, stream, count, filler);
      return;
    }
    topology::EmitRows(*this, nullptr, stream, count, filler);
  }

  void DoEmit(std::string_view stream, int direct_task, Anchors anchors,
              topology::Values&& values) override {
    if constexpr (kPacked) {
      if (anchors.empty()) {
        EmitAnchoredTo(stream, direct_task, window_, std::move(values));
        return;
      }
      topology::OutputCollector::Forward(*out_, stream, direct_task, anchors, std::move(values));
    } else {
      topology::OutputCollector::Forward(*out_, stream, direct_task,
                                         anchors.empty() ? window_ : anchors, std::move(values));
    }
  }
  void Ack(const Tuple&) override {}  // the window acks
  void Fail(const Tuple& input) override { MarkFailed(input); }
  void ResetTimeout(const Tuple& input) override { out_->ResetTimeout(input); }
  void ReportError(std::string_view message) override { out_->ReportError(message); }
  using topology::OutputCollector::ReportDropped;
  void ReportDropped(std::string_view cause, uint64_t count) override {
    out_->ReportDropped(cause, count);
  }
  void ReportGauge(std::string_view name, uint64_t value) override {
    out_->ReportGauge(name, value);
  }

  std::unique_ptr<BoltT> bolt_;
  const WindowConfig config_;
  const WindowPolicy policy_;
  const topology::Fields late_fields_;
  const std::vector<LateRoute> routes_;
  WindowClock clock_;
  const bool count_only_;  // processing-time count slide and length: time is only the end stamp
  topology::OutputCollector* out_ = nullptr;
  topology::RowEmitter* out_rows_ = nullptr;  // out_'s, if it has one
  std::optional<EventTimeInput> event_time_;  // event-time windows only
  std::optional<Manager> manager_;
  int64_t now_ = 0;  // the clock at the last tick
  std::string component_;
  int task_ = 0;
  // The memory check: every kMemoryCheckEvery tuples kept, until it has warned.
  static constexpr uint64_t kMemoryCheckEvery = 4096;
  int budget_mb_ = 0;
  uint64_t kept_ = 0;
  bool memory_warned_ = false;
  // The tuples of the activation running now.
  std::conditional_t<kPacked, std::span<const HeldRow>, Anchors> window_;
  std::vector<topology::AckMeta::Anchor> failed_;
  bool flushed_ = false;
  bool fired_ = false;  // a window fired since the gauges were last reported
  // Packed rows (PackedWindowedBolt only).
  RowArena arena_;
  std::vector<RowOrigin> origins_;
  // By origin (packed windows): the fields the bolt reads (PackedWindowedBolt::FieldsRead), or
  // empty for all.
  std::vector<std::vector<uint8_t>> fields_read_;
  uint32_t last_origin_ = 0;
  std::size_t tracked_rows_ = 0;        // held rows with ack anchors
  std::vector<HeldRow> row_anchors_;    // EmitRowsAnchoredToRows: one row's anchors
  Tuple released_;                      // a released row's ack metadata
  std::vector<PackedRow> anchor_rows_;  // an emit's tracked anchors
  std::vector<Tuple> anchor_tuples_;    // their ack metadata, for the runtime
  std::vector<const Tuple*> anchor_ptrs_;
};

}  // namespace

std::unique_ptr<topology::Bolt> AdaptWindowedBolt(std::unique_ptr<WindowedBolt> bolt,
                                                  WindowConfig config, topology::Fields late_fields,
                                                  WindowClock clock) {
  return AdaptWindowedBolt(std::move(bolt), std::move(config), std::move(late_fields), {},
                           std::move(clock));
}

namespace {

void ValidateAdapted(bool has_bolt, const WindowConfig& config, const topology::Fields& late_fields,
                     const std::vector<LateRoute>& routes) {
  if (!has_bolt) throw std::invalid_argument("AdaptWindowedBolt: the bolt is null");
  ValidateWindowConfig(config);
  if (!config.late_stream.empty() && late_fields.size() == 0) {
    throw std::invalid_argument(fmt::format(
        "late_stream \"{}\" needs the input's fields to be declared with", config.late_stream));
  }
  if (!routes.empty() && !config.event_time()) {
    throw std::invalid_argument(
        "late streams need timestamp_field: only event time has late tuples");
  }
  for (std::size_t i = 0; i < routes.size(); ++i) {
    const topology::Fields* same = routes[i].stream == config.late_stream ? &late_fields : nullptr;
    for (std::size_t j = 0; j < i && same == nullptr; ++j) {
      if (routes[j].stream == routes[i].stream) same = &routes[j].fields;
    }
    if (same != nullptr && *same != routes[i].fields) {
      throw std::invalid_argument(
          fmt::format("late stream \"{}\" is shared by inputs with different fields ({} and {})",
                      routes[i].stream, same->ToString(), routes[i].fields.ToString()));
    }
  }
}

}  // namespace

std::unique_ptr<topology::Bolt> AdaptWindowedBolt(std::unique_ptr<WindowedBolt> bolt,
                                                  WindowConfig config, topology::Fields late_fields,
                                                  std::vector<LateRoute> routes,
                                                  WindowClock clock) {
  ValidateAdapted(bolt != nullptr, config, late_fields, routes);
  return std::make_unique<WindowedBoltAdapter<WindowedBolt>>(std::move(bolt), std::move(config),
                                                             std::move(late_fields),
                                                             std::move(routes), std::move(clock));
}

std::unique_ptr<topology::Bolt> AdaptWindowedBolt(std::unique_ptr<PackedWindowedBolt> bolt,
                                                  WindowConfig config, topology::Fields late_fields,
                                                  std::vector<LateRoute> routes,
                                                  WindowClock clock) {
  ValidateAdapted(bolt != nullptr, config, late_fields, routes);
  return std::make_unique<WindowedBoltAdapter<PackedWindowedBolt>>(
      std::move(bolt), std::move(config), std::move(late_fields), std::move(routes),
      std::move(clock));
}

}  // namespace tempest::bolts

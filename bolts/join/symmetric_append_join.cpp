#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "bolts/expression/join_condition.h"
#include "bolts/join/field_selector.h"
#include "bolts/join/interval_join_state.h"
#include "bolts/join/join_key.h"
#include "bolts/join/join_plan.h"
#include "bolts/join/symmetric_join_runner.h"
#include "bolts/windowing/event_time_input.h"
#include "bolts/windowing/schema_cache.h"
#include "topology/fields.h"
#include "topology/topology_context.h"

// SymmetricHashJoinBolt's append mode (Spark's StreamingSymmetricHashJoinExec): the interval
// join's buffers with the stays the condition allows, a pair filter, and the semi and anti joins.
namespace tempest::bolts {

using topology::Tuple;
using topology::Value;

namespace {

constexpr const char* kOpField = "_op";

class AppendJoinRunner final : public SymmetricJoinRunner, private IntervalJoinRowSink {
 public:
  AppendJoinRunner(const SymmetricHashJoinBoltConfig& config,
                   const topology::TopologyContext& context, topology::OutputCollector& out,
                   WindowClock& clock)
      : config_(config), out_(out), clock_(clock) {
    component_ = context.GetThisComponentId();
    task_ = context.GetThisTaskId();
    SymmetricInputs inputs;
    std::vector<topology::GroupingSpec> groupings;
    SymmetricContextInputs(context, inputs, groupings);
    ValidateSymmetricHashJoinInputs(
        config_, topology::ContextAccess::Topology(context).Find(component_)->parallelism, inputs,
        groupings);
    const SymmetricAppendEviction eviction = PlanSymmetricAppendEviction(config_, inputs);
    ValidateSymmetricHashJoinFitsTopology(config_, eviction, context.GetTopologyConfig());
    plan_ = PlanJoin(SymmetricAsJoinConfig(config_), inputs);
    const topology::Fields left = SymmetricSideFields(config_, config_.left.name, inputs);
    const topology::Fields right = SymmetricSideFields(config_, config_.right.name, inputs);
    if (!config_.condition.empty()) {
      condition_ = SplitJoinCondition(config_.condition, {config_.left.name, "left", {left}},
                                      {config_.right.name, "right", {right}});
    }
    const SymmetricJoinType t = config_.type;
    semi_ = t == SymmetricJoinType::kLeftSemi;
    anti_ = t == SymmetricJoinType::kLeftAnti;
    preserved_[0] = t == SymmetricJoinType::kLeft || t == SymmetricJoinType::kFull;
    preserved_[1] = t == SymmetricJoinType::kRight || t == SymmetricJoinType::kFull;
    acking_ = context.GetTopologyConfig().acker_executors != 0;
    max_pending_ = static_cast<std::size_t>(context.GetTopologyConfig().max_spout_pending);

    IntervalJoinOptions options;
    options.bounds = {eviction.lower, eviction.upper};
    for (int s = 0; s < 2; ++s) {
      evicts_[s] = eviction.stay[s].has_value();
      options.stay[s] = evicts_[s] ? *eviction.stay[s] : IntervalJoinOptions::kNeverLeaves;
      if (!evicts_[s]) {
        spdlog::warn(
            "{} task {}: rows of \"{}\" never leave the join before the end of its input (no "
            "time bound on them in the keys or condition): its state grows with the input",
            component_, task_, s == 0 ? config_.left.name : config_.right.name);
      }
    }
    options.left_once = semi_ || anti_;
    SetFiltersPairs(condition_ && condition_->pairs);
    state_.emplace(static_cast<IntervalJoinRowSink&>(*this), options);

    event_time_.emplace(
        context, out_, clock_, clock_(),
        WatermarkSettings{config_.lag_ms, config_.watermark_interval_ms, config_.idle_timeout_ms},
        [this](const topology::GlobalStreamId& id) -> EventTimeRoute {
          const int side = JoinInputName(config_.selector, id) == config_.left.name ? 0 : 1;
          return {SymmetricTimestampField(config_, side), ""};  // late rows: dropped, counted
        },
        [this](int64_t watermark) { state_->Advance(watermark); });
  }

  void Handle(const Tuple& input, Tuple* owned) override {
    (void)owned;  // the state keeps a packed copy
    const Source& src = SourceOf(input);
    if (src.side < 0) {
      Drop(input, "unknown_stream",
           fmt::format("tuple {} comes from \"{}\", which the join does not name; acked "
                       "and dropped",
                       input.ToString(),
                       JoinInputName(config_.selector, input.GetSourceGlobalStreamId())));
      return;
    }
    if (src.op_index >= 0) {
      const Value& op = input.GetValue(static_cast<std::size_t>(src.op_index));
      if (!op.IsNull() && !(op.IsString() && op.AsString() == "+I")) {
        Drop(input, "bad_op",
             fmt::format("tuple {} has _op {}: mode append joins inserts only (+I or no "
                         "_op; use mode changelog for retractions); acked and dropped",
                         input.ToString(), op.ToString()));
        return;
      }
    }
    int64_t ts = 0;
    if (!event_time_->Timestamp(input, ts)) return;
    if (flushed_) {
      // A replay after the end of input: it joins what comes with it and leaves at once.
      Store(input, src, ts);
      state_->Drain();
      return;
    }
    event_time_->Admit(input, ts, [&] { Store(input, src, ts); });
  }

  // A row of an evicted side without a filter of its own, an insert with a key, joins as a row
  // packed from its cells (a held row to the state's sink, anchored to while it is added); the
  // rest go the tuple way, which reports, pads and acks them.
  void Handle(const BatchInput& in) override {
    const Source& src = SourceOf(in.schema(), in.source_task());
    if (src.side < 0 || flushed_ || !evicts_[src.side] || FilterOf(src.side) ||
        !IsInsert(in.row, src) ||
        !ExtractKey(in.row, src.plan->key_index, plan_.keys[src.plan->position], key_values_,
                    key_)) {
      in.out.ExecuteAsTuple(in.row);
      return;
    }
    event_time_->Take(in, [&](int64_t ts) {
      const JoinSide js = SideOf(src);
      adding_ = src.side;
      state_->Add(js, key_, HashKey(key_), ts, in.row, in.source_task());
      adding_ = -1;
      Held(js);
    });
  }

  void OnTick() override {
    const int64_t now = clock_();
    if (!flushed_) event_time_->OnTick(now);
    ReportState(now);  // after the tick's watermark, so the gauges agree with it
  }

  void OnSourceEnded(const std::string& component) override {
    if (!flushed_) event_time_->OnSourceEnded(component);
  }

  void OnEndOfStream() override {
    if (flushed_) return;
    state_->Drain();  // as if the watermark were +inf: every row leaves, padded if unmatched
    flushed_ = true;
    ReportState(clock_());
    event_time_->OnEndOfStream();
  }

 private:
  struct Source {
    int side = -1;  // 0 left, 1 right, -1 not an input of the join
    int op_index = -1;
    const InputPlan* plan = nullptr;
  };

  const Source& SourceOf(const Tuple& t) {
    return schemas_.Get(t, [this](const Tuple& u) { return MakeSource(u); });
  }
  const Source& SourceOf(const topology::StreamSchema* schema, int task) {
    return schemas_.Get(schema, [&] {
      topology::TupleAccess::Rebind(probe_, schema, task);
      return MakeSource(probe_);
    });
  }
  static JoinSide SideOf(const Source& src) noexcept {
    return src.side == 0 ? JoinSide::kLeft : JoinSide::kRight;
  }
  // A row without `_op`, or whose `_op` is null or +I.
  static bool IsInsert(const topology::RowRef& row, const Source& src) noexcept {
    if (src.op_index < 0) return true;
    const auto op = static_cast<std::size_t>(src.op_index);
    if (op >= row.size()) return false;
    return row.cell(op).tag == topology::CellTag::kNull ||
           (row.IsString(op) && row.Text(op) == "+I");
  }
  // The filter of the side's own rows, if the condition has one.
  const std::optional<ConditionPart>& FilterOf(int side) const noexcept {
    return !condition_ ? no_filter_ : (side == 0 ? condition_->left : condition_->right);
  }

  Source MakeSource(const Tuple& t) const {
    Source s;
    const topology::GlobalStreamId id = t.GetSourceGlobalStreamId();
    s.plan = plan_.Find(id);
    if (s.plan != nullptr) s.side = s.plan->position == 0 ? 0 : 1;
    const auto& names = t.GetFields().names();
    const auto op = std::find(names.begin(), names.end(), kOpField);
    if (op != names.end()) s.op_index = static_cast<int>(op - names.begin());
    return s;
  }

  void Drop(const Tuple& t, std::string_view cause, const std::string& why) {
    if (++reported_ <= 10) out_.ReportError(why);
    out_.Ack(t);
    out_.ReportDropped(cause);
  }

  void Store(const Tuple& input, const Source& src, int64_t ts) {
    const int side = src.side;
    const std::optional<ConditionPart>& filter = FilterOf(side);
    bool keep = true;
    if (filter) {
      const Tuple* one[2] = {side == 0 ? &input : nullptr, side == 1 ? &input : nullptr};
      keep = filter->bound.Holds(one);
    }
    if (!keep || !ExtractKey(input, src.plan->key_index, plan_.keys[src.plan->position], key_)) {
      // It can never match: a preserved side's row is emitted at once (an anti join's left row
      // as it is), the others' are let go.
      adding_ = side;
      if (preserved_[side] || (anti_ && side == 0)) {
        const IntervalJoinRow row(input);
        EmitRow(side == 0 ? &row : nullptr, side == 1 ? &row : nullptr);
      }
      adding_ = -1;
      out_.Ack(input);
      return;
    }
    const JoinSide js = SideOf(src);
    adding_ = side;
    // Outputs are anchored to `input` itself (a side that is never evicted is acked now, after
    // them); the state keeps a packed copy with the ack value they gave it.
    const bool ack_now = !evicts_[side];
    state_->Add(js, key_, HashKey(key_), ts, input);
    adding_ = -1;
    if (ack_now) out_.Ack(input);
    Held(js);
  }

  // After a row is added: the side's peak, and a warning when the state holds more rows than
  // max.spout.pending lets the spouts have in flight.
  void Held(JoinSide js) {
    const std::size_t held = state_->size(JoinSide::kLeft) + state_->size(JoinSide::kRight);
    const int side = js == JoinSide::kLeft ? 0 : 1;
    peak_[side] = std::max(peak_[side], state_->size(js));
    if (acking_ && max_pending_ > 0 && held >= max_pending_ && !warned_pending_) {
      warned_pending_ = true;
      spdlog::warn(
          "{} task {}: holds {} tuples, topology.max.spout.pending is {}: the spouts may stall "
          "until held tuples time out (raise it above what the join holds)",
          component_, task_, held, max_pending_);
    }
  }

  // The rows each side holds now and at most, and the watermark, for the run summary.
  void ReportState(int64_t now) {
    const std::size_t rows[2] = {state_->size(JoinSide::kLeft), state_->size(JoinSide::kRight)};
    ReportSymmetricJoinState(out_, rows, peak_);
    event_time_->ReportWatermark(now);
  }

  // The state's calls.
  bool PairsRows(const IntervalJoinRow& left, const IntervalJoinRow& right) override {
    const Tuple* both[2] = {&AsTuple(left, 0), &AsTuple(right, 1)};
    return condition_->pairs->bound.Holds(both);
  }
  void JoinedRows(const IntervalJoinRow& left, const IntervalJoinRow& right, int64_t ts) override {
    (void)ts;
    if (anti_) return;  // an anti join emits only what never matches
    if (semi_) {
      EmitRow(&left, nullptr, &right);
      return;
    }
    EmitRow(&left, &right);
  }
  void LeftRow(JoinSide side, const IntervalJoinRow& row, int64_t ts, bool matched) override {
    (void)ts;
    const int s = side == JoinSide::kLeft ? 0 : 1;
    if (!matched && (preserved_[s] || (anti_ && s == 0))) {
      EmitRow(s == 0 ? &row : nullptr, s == 1 ? &row : nullptr);
    }
    if (!evicts_[s]) return;  // the others were acked when processed
    if (row.added() != nullptr) {
      out_.Ack(*row.added());
    } else if (row.tracked()) {
      row.Unpack(acked_);  // whole: an ack is the row to whoever receives it
      out_.Ack(acked_);
    } else {
      topology::TupleAccess::Rebind(untracked_, row.schema(), row.source_task());
      out_.Ack(untracked_);
    }
  }

  // A row as a Tuple for the condition: the added tuple, or a held row unpacked into scratch i.
  const Tuple& AsTuple(const IntervalJoinRow& row, int i) {
    if (row.added() != nullptr) return *row.added();
    row.Unpack(pair_tuples_[i]);
    return pair_tuples_[i];
  }

  // The plan of a row of `side`: most sides have one stream, so the last one is kept.
  const InputPlan& PlanOf(const IntervalJoinRow& r, int side) {
    if (r.schema() != last_schema_[side]) {
      last_schema_[side] = r.schema();
      topology::TupleAccess::Rebind(untracked_, r.schema(), r.source_task());
      last_plan_[side] = SourceOf(untracked_).plan;
    }
    return *last_plan_[side];
  }

  // `left`/`right`: the output's rows (null: padded); `cause`: another row to anchor to (a semi
  // join's right row). A row is an anchor while it is unacked: its side is evicted, or it is
  // the row being processed. The row being processed is anchored to as itself, a held one
  // through a stand-in carrying its ack metadata, whose gained ack value goes back into it.
  void EmitRow(const IntervalJoinRow* left, const IntervalJoinRow* right,
               const IntervalJoinRow* cause = nullptr) {
    const IntervalJoinRow* sides_rows[2] = {left, right};
    const InputPlan* plans[2] = {left != nullptr ? &PlanOf(*left, 0) : nullptr,
                                 right != nullptr ? &PlanOf(*right, 1) : nullptr};
    topology::Values row;
    row.reserve(plan_.select.size());
    for (std::size_t f = 0; f < plan_.select.size(); ++f) {
      const SelectPlan& sel = plan_.select[f];
      const int side = sel.input == 0 ? 0 : 1;
      if (sides_rows[side] == nullptr) {
        row.emplace_back();
        continue;
      }
      sides_rows[side]->AppendValue(plans[side]->select_index[f], sel.path, row);
    }
    std::size_t n = 0;
    const IntervalJoinRow* rows[3] = {left, right, cause};
    const int sides[3] = {0, 1, 1};
    for (int i = 0; i < 3; ++i) {
      if (rows[i] == nullptr || !(evicts_[sides[i]] || adding_ == sides[i])) {
        rows[i] = nullptr;
        continue;
      }
      if (rows[i]->added() != nullptr) {
        anchors_[n++] = rows[i]->added();
        rows[i] = nullptr;
        continue;
      }
      rows[i]->LoadAnchor(anchor_tuples_[i]);
      anchors_[n++] = &anchor_tuples_[i];
    }
    out_.Emit(output_stream_, topology::Anchors(anchors_, n), std::move(row));
    for (int i = 0; i < 3; ++i) {
      if (rows[i] != nullptr) rows[i]->FoldAck(anchor_tuples_[i]);
    }
  }

  const SymmetricHashJoinBoltConfig& config_;
  const std::string_view output_stream_ = topology::EmitStreamName(config_.output_stream);
  topology::OutputCollector& out_;
  WindowClock& clock_;
  std::string component_;
  int task_ = 0;
  JoinPlan plan_;
  std::optional<JoinCondition> condition_;
  const std::optional<ConditionPart> no_filter_;
  bool semi_ = false;
  bool anti_ = false;
  bool preserved_[2] = {false, false};
  bool evicts_[2] = {false, false};
  bool acking_ = true;
  std::size_t max_pending_ = 0;
  bool warned_pending_ = false;
  std::optional<IntervalJoinState> state_;
  std::optional<EventTimeInput> event_time_;
  SchemaCache<Source> schemas_;
  const topology::StreamSchema* last_schema_[2] = {nullptr, nullptr};
  const InputPlan* last_plan_[2] = {nullptr, nullptr};
  KeyRef key_;
  topology::Values key_values_;  // a batch row's key parts, read from its cells
  Tuple probe_;                  // a schema and task as a Tuple, to look its source up
  const Tuple* anchors_[3] = {nullptr, nullptr, nullptr};
  Tuple anchor_tuples_[3];  // stand-ins for held rows an output is anchored to
  Tuple pair_tuples_[2];    // held rows unpacked for the pair condition
  Tuple acked_;             // a tracked held row, unpacked to be acked
  Tuple untracked_;         // the stream of an untracked held row (no values, no anchors)
  int adding_ = -1;         // the side of the row being processed, while it is
  std::size_t peak_[2] = {0, 0};
  bool flushed_ = false;
  uint64_t reported_ = 0;
};

}  // namespace

std::unique_ptr<SymmetricJoinRunner> MakeAppendJoinRunner(const SymmetricHashJoinBoltConfig& config,
                                                          const topology::TopologyContext& context,
                                                          topology::OutputCollector& out,
                                                          WindowClock& clock) {
  return std::make_unique<AppendJoinRunner>(config, context, out, clock);
}

}  // namespace tempest::bolts

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "bolts/expression/join_condition.h"
#include "bolts/join/changelog_join_state.h"
#include "bolts/join/field_selector.h"
#include "bolts/join/join_key.h"
#include "bolts/join/join_plan.h"
#include "bolts/join/symmetric_join_runner.h"
#include "bolts/windowing/schema_cache.h"
#include "topology/fields.h"
#include "topology/topology_context.h"

// SymmetricHashJoinBolt's changelog mode (Flink's StreamingJoinOperator over ChangelogJoinState).
namespace tempest::bolts {

using topology::Tuple;
using topology::Value;

namespace {

constexpr const char* kOpField = "_op";

// Changelog mode: plans, filters, the state, and the sink the state emits through.
class ChangelogJoinRunner final : public SymmetricJoinRunner, private ChangelogJoinSink {
 public:
  ChangelogJoinRunner(const SymmetricHashJoinBoltConfig& config,
                      const topology::TopologyContext& context, topology::OutputCollector& out,
                      WindowClock& clock)
      : config_(config), out_(out), clock_(clock) {
    SymmetricInputs inputs;
    std::vector<topology::GroupingSpec> groupings;
    SymmetricContextInputs(context, inputs, groupings);
    ValidateSymmetricHashJoinInputs(
        config_,
        topology::ContextAccess::Topology(context).Find(context.GetThisComponentId())->parallelism,
        inputs, groupings);
    plan_ = PlanJoin(SymmetricAsJoinConfig(config_), inputs);
    fields_[0] = SymmetricSideFields(config_, config_.left.name, inputs);
    fields_[1] = SymmetricSideFields(config_, config_.right.name, inputs);
    if (!config_.condition.empty()) {
      condition_ = SplitJoinCondition(config_.condition, {config_.left.name, "left", {fields_[0]}},
                                      {config_.right.name, "right", {fields_[1]}});
    }
    const SymmetricJoinType t = config_.type;
    semi_ = t == SymmetricJoinType::kLeftSemi;
    anti_ = t == SymmetricJoinType::kLeftAnti;
    // A semi or anti join is a left outer join whose outputs are translated (Emit): a left row's
    // padded form appearing or going away is exactly its match count leaving or reaching 0.
    preserved_[0] =
        t == SymmetricJoinType::kLeft || t == SymmetricJoinType::kFull || semi_ || anti_;
    preserved_[1] = t == SymmetricJoinType::kRight || t == SymmetricJoinType::kFull;
    ChangelogSide sides[2];
    for (int s = 0; s < 2; ++s) {
      const SymmetricJoinInput& in = s == 0 ? config_.left : config_.right;
      const auto& names = fields_[s].names();
      const auto op = std::find(names.begin(), names.end(), kOpField);
      op_field_[s] = op == names.end() ? -1 : static_cast<int>(op - names.begin());
      const int64_t ttl = in.state_ttl_ms >= 0 ? in.state_ttl_ms : config_.state_ttl_ms;
      ttl_ = ttl_ || ttl > 0;
      sides[s] = {preserved_[s], in.unique, ttl, op_field_[s]};
    }
    const BoundExpression* pairs =
        condition_ && condition_->pairs ? &condition_->pairs->bound : nullptr;
    state_.emplace(sides[0], sides[1], pairs, static_cast<ChangelogJoinSink&>(*this));
  }

  void Handle(const Tuple& input, Tuple* owned) override {
    (void)owned;  // rows are copied into the state
    const Source& src = SourceOf(input);
    if (src.side < 0) {
      Drop(input, "unknown_stream",
           fmt::format("tuple {} comes from \"{}\", which the join does not name; acked "
                       "and dropped",
                       input.ToString(),
                       JoinInputName(config_.selector, input.GetSourceGlobalStreamId())));
      return;
    }
    RowKind kind = RowKind::kInsert;
    if (op_field_[src.side] >= 0) {
      const Value& op = input.GetValue(static_cast<std::size_t>(op_field_[src.side]));
      std::optional<RowKind> parsed;
      if (op.IsString()) parsed = ParseRowKind(op.AsString());
      if (!op.IsNull() && !parsed) {
        Drop(input, "bad_op",
             fmt::format("tuple {} has _op {}: expected +I, -U, +U or -D (or none); "
                         "acked and dropped",
                         input.ToString(), op.ToString()));
        return;
      }
      if (parsed) kind = *parsed;
    }
    current_ = &input;
    current_side_ = src.side;
    current_kind_ = kind;
    emitted_ = false;
    const std::optional<ConditionPart>& filter =
        !condition_ ? no_filter_ : (src.side == 0 ? condition_->left : condition_->right);
    bool keep = true;
    if (filter) {
      const Tuple* one[2] = {src.side == 0 ? &input : nullptr, src.side == 1 ? &input : nullptr};
      keep = filter->bound.Holds(one);
    }
    if (keep && ExtractKey(input, src.plan->key_index, plan_.keys[src.plan->position], key_)) {
      state_->Process(src.side == 0 ? JoinSide::kLeft : JoinSide::kRight, kind, key_, input,
                      ttl_ ? clock_() : 0);
    } else if (preserved_[src.side]) {
      // Never stored, never matched: padded at once (and its retraction retracts that row).
      const RowKind padded = IsAccumulate(kind) ? RowKind::kInsert : RowKind::kDelete;
      Emit(padded, src.side == 0 ? &input : nullptr, src.side == 1 ? &input : nullptr);
    }
    current_ = nullptr;
    out_.Ack(input);
    for (int s = 0; s < 2; ++s) {
      peak_[s] = std::max(peak_[s], state_->rows(s == 0 ? JoinSide::kLeft : JoinSide::kRight));
    }
  }

  void OnTick() override {
    if (ttl_) state_->Expire(clock_());  // rows expire while no input comes
    ReportState();
  }
  void OnEndOfStream() override { ReportState(); }

 private:
  struct Source {
    int side = -1;
    const InputPlan* plan = nullptr;
  };

  const Source& SourceOf(const Tuple& t) {
    return schemas_.Get(t, [this](const Tuple& u) { return MakeSource(u); });
  }

  Source MakeSource(const Tuple& t) const {
    Source s;
    const topology::GlobalStreamId id = t.GetSourceGlobalStreamId();
    s.plan = plan_.Find(id);
    if (s.plan != nullptr) s.side = s.plan->position == 0 ? 0 : 1;
    return s;
  }

  // The rows each side holds now and at most, for the run summary.
  void ReportState() {
    const std::size_t rows[2] = {state_->rows(JoinSide::kLeft), state_->rows(JoinSide::kRight)};
    ReportSymmetricJoinState(out_, rows, peak_);
  }

  void Drop(const Tuple& t, std::string_view cause, const std::string& why) {
    if (++reported_ <= 10) out_.ReportError(why);
    out_.Ack(t);
    out_.ReportDropped(cause);
  }

  // The state's output; a semi or anti join's outputs are left rows (Flink's
  // StreamingSemiAntiJoinOperator). A left input is emitted as it came (its own _op) once when
  // it has a match (semi) or when it has none (anti: its padded form). A right input changes
  // left rows' match counts: a padded row retracted is a count leaving 0 (semi: the left row
  // with the right input's _op; anti: -D), a padded row back is a count reaching 0 (semi: the
  // right input's _op; anti: +I). Joined rows are not output.
  void Emit(RowKind kind, const Tuple* left, const Tuple* right) override {
    if (!semi_ && !anti_) {
      EmitRow(kind, left, right);
      return;
    }
    if (current_side_ == 0) {
      if (semi_ ? right == nullptr : right != nullptr) return;
      if (emitted_) return;
      emitted_ = true;
      EmitRow(current_kind_, left, nullptr);
      return;
    }
    if (right != nullptr || left == nullptr) return;
    const RowKind out = semi_ ? current_kind_ : kind;
    EmitRow(out, left, nullptr);
  }

  // `select`ed from the two rows, plus `_op`, anchored to the input.
  void EmitRow(RowKind kind, const Tuple* left, const Tuple* right) {
    topology::Values row;
    row.reserve(plan_.select.size() + 1);
    const Tuple* tuples[2] = {left, right};
    const InputPlan* plans[2] = {left != nullptr ? &PlanOf(*left, 0) : nullptr,
                                 right != nullptr ? &PlanOf(*right, 1) : nullptr};
    for (std::size_t f = 0; f < plan_.select.size(); ++f) {
      const SelectPlan& sel = plan_.select[f];
      const int side = sel.input == 0 ? 0 : 1;
      const Value* v = nullptr;
      if (tuples[side] != nullptr) {
        v = LookupPath(*tuples[side], plans[side]->select_index[f], sel.path);
      }
      row.push_back(v != nullptr ? *v : Value());
    }
    row.push_back(op_values_[static_cast<int>(kind)]);
    out_.Emit(output_stream_, *current_, std::move(row));
  }

  // The plan of a row of `side`: most sides have one stream, so the last one is kept.
  const InputPlan& PlanOf(const Tuple& t, int side) {
    if (t.schema() != last_schema_[side]) {
      last_schema_[side] = t.schema();
      last_plan_[side] = SourceOf(t).plan;
    }
    return *last_plan_[side];
  }

  const SymmetricHashJoinBoltConfig& config_;
  const std::string_view output_stream_ = topology::EmitStreamName(config_.output_stream);
  topology::OutputCollector& out_;
  WindowClock& clock_;
  JoinPlan plan_;
  topology::Fields fields_[2];
  std::optional<JoinCondition> condition_;
  const std::optional<ConditionPart> no_filter_;
  bool preserved_[2] = {false, false};
  int op_field_[2] = {-1, -1};
  std::optional<ChangelogJoinState> state_;
  SchemaCache<Source> schemas_;
  KeyRef key_;
  const Tuple* current_ = nullptr;
  const topology::StreamSchema* last_schema_[2] = {nullptr, nullptr};
  const InputPlan* last_plan_[2] = {nullptr, nullptr};
  // `_op` of each RowKind, built once (copying a short string Value is cheaper than making one).
  const Value op_values_[4] = {Value(std::string("+I")), Value(std::string("-U")),
                               Value(std::string("+U")), Value(std::string("-D"))};
  int current_side_ = 0;
  RowKind current_kind_ = RowKind::kInsert;
  bool emitted_ = false;  // this input's semi/anti output is out
  bool semi_ = false;
  bool anti_ = false;
  bool ttl_ = false;  // a side's rows expire
  uint64_t reported_ = 0;
  std::size_t peak_[2] = {0, 0};
};

}  // namespace

std::unique_ptr<SymmetricJoinRunner> MakeChangelogJoinRunner(
    const SymmetricHashJoinBoltConfig& config, const topology::TopologyContext& context,
    topology::OutputCollector& out, WindowClock& clock) {
  return std::make_unique<ChangelogJoinRunner>(config, context, out, clock);
}

}  // namespace tempest::bolts

#include "bolts/join/symmetric_hash_join_bolt.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <stdexcept>

#include "bolts/expression/join_condition.h"
#include "bolts/join/changelog_join_state.h"
#include "bolts/join/field_selector.h"
#include "bolts/join/join_key.h"
#include "bolts/join/join_plan.h"

namespace tempest::bolts {

using topology::Tuple;
using topology::Value;

namespace {

constexpr const char* kOpField = "_op";

JoinType AsJoinType(SymmetricJoinType t) {
  switch (t) {
    case SymmetricJoinType::kInner:
      return JoinType::kInner;
    case SymmetricJoinType::kLeft:
      return JoinType::kLeft;
    case SymmetricJoinType::kRight:
      return JoinType::kRight;
    case SymmetricJoinType::kFull:
      return JoinType::kFull;
    case SymmetricJoinType::kLeftSemi:
    case SymmetricJoinType::kLeftAnti:
      return JoinType::kInner;
  }
  return JoinType::kInner;
}

// The join as the N-way JoinBolt plans it: left is `from`, right joins it.
JoinBoltConfig AsJoinConfig(const SymmetricHashJoinBoltConfig& c) {
  JoinBoltConfig j;
  j.selector = c.selector;
  j.from = {c.left.name, c.left.key};
  j.joins.push_back({AsJoinType(c.type), c.right.name, c.right.key, c.left.name});
  j.select = c.select;
  return j;
}

// The fields of the streams of the input called `name` (they must all be the same).
topology::Fields SideFields(
    const SymmetricHashJoinBoltConfig& c, const std::string& name,
    const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs) {
  const topology::Fields* found = nullptr;
  for (const auto& [stream, fields] : inputs) {
    if (JoinInputName(c.selector, stream) != name) continue;
    if (found != nullptr && *found != fields) {
      throw std::invalid_argument(fmt::format(
          "the streams of \"{}\" have different fields ({} and {}): a changelog row's identity "
          "is its fields",
          name, found->ToString(), fields.ToString()));
    }
    found = &fields;
  }
  return found != nullptr ? *found : topology::Fields();
}

}  // namespace

void ValidateSymmetricHashJoinBoltConfig(const SymmetricHashJoinBoltConfig& c) {
  if (c.left.name.empty()) throw std::invalid_argument("the join needs a left input (left.name)");
  if (c.right.name.empty()) {
    throw std::invalid_argument("the join needs a right input (right.name)");
  }
  const JoinBoltConfig j = AsJoinConfig(c);
  ValidateJoinClauses(j.from, j.joins);
  if (c.mode == SymmetricJoinMode::kAppend) {
    throw std::invalid_argument(
        "mode append is not available yet (issue 9 builds it next); use mode: changelog, or "
        "IntervalJoinBolt for a join bounded by time");
  }
  if (c.type == SymmetricJoinType::kLeftSemi || c.type == SymmetricJoinType::kLeftAnti) {
    throw std::invalid_argument(
        "left_semi and left_anti are not available yet (issue 9 builds them next); use inner, "
        "left, right or full");
  }
  if (c.select.find_first_not_of(" \t,") == std::string::npos) {
    throw std::invalid_argument(
        "select is required: the output fields, e.g. \"orders:id, payments:amount\"");
  }
  for (const FieldSelector& s : ParseSelect(c.select)) {
    if (s.output_name == kOpField) {
      throw std::invalid_argument(
          "select: \"_op\" is added to every output row; select an input's own as "
          "\"name:_op AS other_name\"");
    }
  }
  if (!c.condition.empty()) ParseExpression(c.condition);
  if (c.state_ttl_ms < 0) {
    throw std::invalid_argument(fmt::format("state_ttl_ms must be >= 0, found {}", c.state_ttl_ms));
  }
}

void ValidateSymmetricHashJoinInputs(
    const SymmetricHashJoinBoltConfig& c, int parallelism,
    const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs,
    const std::vector<topology::GroupingSpec>& groupings) {
  const JoinBoltConfig j = AsJoinConfig(c);
  ValidateJoinInputs(j, parallelism, inputs, groupings);
  const topology::Fields left = SideFields(c, c.left.name, inputs);
  const topology::Fields right = SideFields(c, c.right.name, inputs);
  PlanJoin(j, inputs);
  if (!c.condition.empty()) {
    SplitJoinCondition(c.condition, {c.left.name, "left", {left}},
                       {c.right.name, "right", {right}});
  }
}

// The bolt proper: plans, filters, the state, and the sink the state emits through.
class SymmetricHashJoinBolt::Impl final : private ChangelogJoinSink {
 public:
  Impl(const SymmetricHashJoinBoltConfig& config, const topology::TopologyContext& context,
       topology::OutputCollector& out, WindowClock& clock)
      : config_(config), out_(out), clock_(clock) {
    std::vector<std::pair<topology::GlobalStreamId, topology::Fields>> inputs;
    std::vector<topology::GroupingSpec> groupings;
    const topology::ComponentSpec* self =
        context.GetRawTopology().Find(context.GetThisComponentId());
    for (const topology::InputSpec& in : self->inputs) {
      inputs.emplace_back(in.source,
                          context.GetComponentOutputFields(in.source.component, in.source.stream));
      groupings.push_back(in.grouping);
    }
    ValidateSymmetricHashJoinInputs(config_, self->parallelism, inputs, groupings);
    plan_ = PlanJoin(AsJoinConfig(config_), inputs);
    fields_[0] = SideFields(config_, config_.left.name, inputs);
    fields_[1] = SideFields(config_, config_.right.name, inputs);
    if (!config_.condition.empty()) {
      condition_ = SplitJoinCondition(config_.condition, {config_.left.name, "left", {fields_[0]}},
                                      {config_.right.name, "right", {fields_[1]}});
    }
    const SymmetricJoinType t = config_.type;
    preserved_[0] = t == SymmetricJoinType::kLeft || t == SymmetricJoinType::kFull;
    preserved_[1] = t == SymmetricJoinType::kRight || t == SymmetricJoinType::kFull;
    ChangelogSide sides[2];
    for (int s = 0; s < 2; ++s) {
      const SymmetricJoinInput& in = s == 0 ? config_.left : config_.right;
      const auto& names = fields_[s].names();
      const auto op = std::find(names.begin(), names.end(), kOpField);
      op_field_[s] = op == names.end() ? -1 : static_cast<int>(op - names.begin());
      sides[s] = {preserved_[s], in.unique, config_.state_ttl_ms, op_field_[s]};
    }
    const BoundExpression* pairs =
        condition_ && condition_->pairs ? &condition_->pairs->bound : nullptr;
    state_.emplace(sides[0], sides[1], pairs, static_cast<ChangelogJoinSink&>(*this));
  }

  void Handle(const Tuple& input) {
    const Source& src = SourceOf(input);
    if (src.side < 0) {
      Drop(input, fmt::format("tuple {} comes from \"{}\", which the join does not name; acked "
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
        Drop(input, fmt::format("tuple {} has _op {}: expected +I, -U, +U or -D (or none); "
                                "acked and dropped",
                                input.ToString(), op.ToString()));
        return;
      }
      if (parsed) kind = *parsed;
    }
    current_ = &input;
    const std::optional<ConditionPart>& filter =
        !condition_ ? no_filter_ : (src.side == 0 ? condition_->left : condition_->right);
    bool keep = true;
    if (filter) {
      const Tuple* one[2] = {src.side == 0 ? &input : nullptr, src.side == 1 ? &input : nullptr};
      keep = filter->bound.Holds(one);
    }
    if (keep && ExtractKey(input, src.plan->key_index, plan_.keys[src.plan->position], key_)) {
      state_->Process(src.side == 0 ? JoinSide::kLeft : JoinSide::kRight, kind, key_, input,
                      config_.state_ttl_ms > 0 ? clock_() : 0);
    } else if (preserved_[src.side]) {
      // Never stored, never matched: padded at once (and its retraction retracts that row).
      const RowKind padded = IsAccumulate(kind) ? RowKind::kInsert : RowKind::kDelete;
      Emit(padded, src.side == 0 ? &input : nullptr, src.side == 1 ? &input : nullptr);
    }
    current_ = nullptr;
    out_.Ack(input);
  }

 private:
  struct Source {
    const topology::StreamSchema* schema = nullptr;
    int side = -1;
    const InputPlan* plan = nullptr;
  };

  const Source& SourceOf(const Tuple& t) {
    for (const Source& s : schemas_) {
      if (s.schema == t.schema()) return s;
    }
    Source s;
    s.schema = t.schema();
    const topology::GlobalStreamId id = t.GetSourceGlobalStreamId();
    s.plan = plan_.Find(id);
    if (s.plan != nullptr) s.side = s.plan->position == 0 ? 0 : 1;
    schemas_.push_back(s);
    return schemas_.back();
  }

  void Drop(const Tuple& t, const std::string& why) {
    if (++reported_ <= 10) out_.ReportError(why);
    out_.Ack(t);
    out_.ReportDropped();
  }

  // The state's output: `select`ed from the two rows, plus `_op`, anchored to the input.
  void Emit(RowKind kind, const Tuple* left, const Tuple* right) override {
    topology::Values row;
    row.reserve(plan_.select.size() + 1);
    const Tuple* tuples[2] = {left, right};
    const InputPlan* plans[2] = {left != nullptr ? SourceOf(*left).plan : nullptr,
                                 right != nullptr ? SourceOf(*right).plan : nullptr};
    for (std::size_t f = 0; f < plan_.select.size(); ++f) {
      const SelectPlan& sel = plan_.select[f];
      const int side = sel.input == 0 ? 0 : 1;
      const Value* v = nullptr;
      if (tuples[side] != nullptr) {
        v = LookupPath(*tuples[side], plans[side]->select_index[f], sel.path);
      }
      row.push_back(v != nullptr ? *v : Value());
    }
    row.emplace_back(std::string(RowKindName(kind)));
    out_.Emit(config_.output_stream, *current_, std::move(row));
  }

  const SymmetricHashJoinBoltConfig& config_;
  topology::OutputCollector& out_;
  WindowClock& clock_;
  JoinPlan plan_;
  topology::Fields fields_[2];
  std::optional<JoinCondition> condition_;
  const std::optional<ConditionPart> no_filter_;
  bool preserved_[2] = {false, false};
  int op_field_[2] = {-1, -1};
  std::optional<ChangelogJoinState> state_;
  std::deque<Source> schemas_;  // stable references: SourceOf hands them out
  KeyRef key_;
  const Tuple* current_ = nullptr;
  uint64_t reported_ = 0;
};

SymmetricHashJoinBolt::SymmetricHashJoinBolt(SymmetricHashJoinBoltConfig config, WindowClock clock)
    : config_(std::move(config)), clock_(std::move(clock)) {
  ValidateSymmetricHashJoinBoltConfig(config_);
}

SymmetricHashJoinBolt::~SymmetricHashJoinBolt() = default;

void SymmetricHashJoinBolt::Prepare(const topology::TopologyContext& context,
                                    topology::OutputCollector& collector) {
  impl_ = std::make_unique<Impl>(config_, context, collector, clock_);
}

void SymmetricHashJoinBolt::Execute(const Tuple& input) { impl_->Handle(input); }

void SymmetricHashJoinBolt::DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const {
  std::vector<std::string> names;
  for (const FieldSelector& f : ParseSelect(config_.select)) names.push_back(f.output_name);
  names.emplace_back(kOpField);
  declarer.DeclareStream(config_.output_stream, topology::Fields(std::move(names)));
}

}  // namespace tempest::bolts

#include "bolts/join/symmetric_hash_join_bolt.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <stdexcept>

#include "bolts/expression/join_condition.h"
#include "bolts/join/field_selector.h"
#include "bolts/join/join_plan.h"
#include "bolts/join/join_time_bounds.h"
#include "bolts/join/symmetric_join_runner.h"
#include "bolts/windowing/window_config.h"
#include "topology/saturating.h"
#include "topology/topology_context.h"

namespace tempest::bolts {

using topology::Tuple;

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

const char* TypeName(SymmetricJoinType t) {
  switch (t) {
    case SymmetricJoinType::kInner:
      return "inner";
    case SymmetricJoinType::kLeft:
      return "left";
    case SymmetricJoinType::kRight:
      return "right";
    case SymmetricJoinType::kFull:
      return "full";
    case SymmetricJoinType::kLeftSemi:
      return "left_semi";
    case SymmetricJoinType::kLeftAnti:
      return "left_anti";
  }
  return "inner";
}

bool SameName(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// The sides whose rows must be able to leave the state for the join's output to be complete.
bool MustEvict(SymmetricJoinType t, int side) {
  switch (t) {
    case SymmetricJoinType::kInner:
      return false;
    case SymmetricJoinType::kLeft:
    case SymmetricJoinType::kLeftSemi:
    case SymmetricJoinType::kLeftAnti:
      return side == 0;
    case SymmetricJoinType::kRight:
      return side == 1;
    case SymmetricJoinType::kFull:
      return true;
  }
  return false;
}

}  // namespace

JoinBoltConfig SymmetricAsJoinConfig(const SymmetricHashJoinBoltConfig& c) {
  JoinBoltConfig j;
  j.selector = c.selector;
  j.from = {c.left.name, c.left.key};
  j.joins.push_back({AsJoinType(c.type), c.right.name, c.right.key, c.left.name});
  j.select = c.select;
  return j;
}

topology::Fields SymmetricSideFields(const SymmetricHashJoinBoltConfig& c, const std::string& name,
                                     const SymmetricInputs& inputs) {
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

void SymmetricContextInputs(const topology::TopologyContext& context, SymmetricInputs& inputs,
                            std::vector<topology::GroupingSpec>& groupings) {
  const topology::ComponentSpec* self =
      topology::ContextAccess::Topology(context).Find(context.GetThisComponentId());
  for (const topology::InputSpec& in : self->inputs) {
    inputs.emplace_back(in.source,
                        context.GetComponentOutputFields(in.source.component, in.source.stream));
    groupings.push_back(in.grouping);
  }
}

void ReportSymmetricJoinState(topology::OutputCollector& out, const std::size_t rows[2],
                              const std::size_t peaks[2]) {
  out.ReportGauge("state rows left", rows[0]);
  out.ReportGauge("state rows right", rows[1]);
  out.ReportGauge("state peak left", peaks[0]);
  out.ReportGauge("state peak right", peaks[1]);
}

const std::string& SymmetricTimestampField(const SymmetricHashJoinBoltConfig& c, int side) {
  const SymmetricJoinInput& in = side == 0 ? c.left : c.right;
  return in.timestamp_field.empty() ? c.timestamp_field : in.timestamp_field;
}

void ValidateSymmetricHashJoinBoltConfig(const SymmetricHashJoinBoltConfig& c) {
  if (c.left.name.empty()) throw std::invalid_argument("the join needs a left input (left.name)");
  if (c.right.name.empty()) {
    throw std::invalid_argument("the join needs a right input (right.name)");
  }
  const JoinBoltConfig j = SymmetricAsJoinConfig(c);
  ValidateJoinClauses(j.from, j.joins);
  const bool append = c.mode == SymmetricJoinMode::kAppend;
  if (append) {
    if (c.state_ttl_ms != 0 || c.left.state_ttl_ms >= 0 || c.right.state_ttl_ms >= 0) {
      throw std::invalid_argument(
          "state_ttl_ms is for mode changelog: in mode append rows leave by the watermark, as "
          "the condition's time bounds allow");
    }
    for (const SymmetricJoinInput* in : {&c.left, &c.right}) {
      if (in->unique) {
        throw std::invalid_argument(fmt::format(
            "\"{}\": unique is for mode changelog (a new row replaces the stored one); append "
            "mode keeps every row",
            in->name));
      }
      const std::string& ts = in->timestamp_field.empty() ? c.timestamp_field : in->timestamp_field;
      if (ts.empty()) {
        throw std::invalid_argument(fmt::format(
            "\"{}\" has no event time: mode append needs timestamp_field (in its side's map, or "
            "for both at the bolt level)",
            in->name));
      }
    }
    ValidateWatermarkSettings(c.lag_ms, c.watermark_interval_ms, c.idle_timeout_ms);
  } else {
    const bool event_time = !c.timestamp_field.empty() || !c.left.timestamp_field.empty() ||
                            !c.right.timestamp_field.empty() || c.lag_ms != 0 ||
                            c.idle_timeout_ms != 0;
    if (event_time) {
      throw std::invalid_argument(
          "timestamp_field, lag_ms and idle_timeout_ms are for mode append: mode changelog works "
          "in processing time (rows stay until retracted or until state_ttl_ms)");
    }
  }
  if (c.select.find_first_not_of(" \t,") == std::string::npos) {
    throw std::invalid_argument(
        "select is required: the output fields, e.g. \"orders:id, payments:amount\"");
  }
  for (const FieldSelector& s : ParseSelect(c.select)) {
    if (!append && s.output_name == kOpField) {
      throw std::invalid_argument(
          "select: \"_op\" is added to every output row; select an input's own as "
          "\"name:_op AS other_name\"");
    }
  }
  if (!c.condition.empty()) ParseExpression(c.condition);
  if (c.state_ttl_ms < 0) {
    throw std::invalid_argument(fmt::format("state_ttl_ms must be >= 0, found {}", c.state_ttl_ms));
  }
  for (const SymmetricJoinInput* in : {&c.left, &c.right}) {
    if (in->state_ttl_ms < -1) {
      throw std::invalid_argument(
          fmt::format("\"{}\": state_ttl_ms must be >= 0, found {}", in->name, in->state_ttl_ms));
    }
  }
}

void ValidateSymmetricHashJoinInputs(
    const SymmetricHashJoinBoltConfig& c, int parallelism,
    const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs,
    const std::vector<topology::GroupingSpec>& groupings) {
  const JoinBoltConfig j = SymmetricAsJoinConfig(c);
  ValidateJoinInputs(j, parallelism, inputs, groupings);
  const topology::Fields left = SymmetricSideFields(c, c.left.name, inputs);
  const topology::Fields right = SymmetricSideFields(c, c.right.name, inputs);
  if (!c.condition.empty()) {
    SplitJoinCondition(c.condition, {c.left.name, "left", {left}},
                       {c.right.name, "right", {right}});
  }
  ValidateSymmetricHashJoinSelect(c, inputs);
  if (c.mode != SymmetricJoinMode::kAppend) return;
  for (const auto& [stream, fields] : inputs) {
    const int side = JoinInputName(c.selector, stream) == c.left.name ? 0 : 1;
    const std::string& ts = SymmetricTimestampField(c, side);
    if (!fields.Contains(ts)) {
      throw std::invalid_argument(
          fmt::format("timestamp_field \"{}\" is not declared by \"{}\" (declared: {})", ts,
                      JoinInputName(c.selector, stream), fields.ToString()));
    }
  }
  const SymmetricAppendEviction eviction = PlanSymmetricAppendEviction(c, inputs);
  for (int side = 0; side < 2; ++side) {
    if (!MustEvict(c.type, side) || eviction.stay[side]) continue;
    const std::string& me = side == 0 ? c.left.name : c.right.name;
    const std::string& other = side == 0 ? c.right.name : c.left.name;
    const std::string& my_ts = SymmetricTimestampField(c, side);
    const std::string& other_ts = SymmetricTimestampField(c, 1 - side);
    throw UnboundedAppendJoinError(fmt::format(
        "a {} join in mode append emits a row of \"{}\" that found no match only when it leaves "
        "the state, and nothing bounds how long it could still match: no row of \"{}\" ever "
        "becomes too late for it. Bound it (Spark requires the same: a watermark in the join "
        "keys, or a watermark on the nullable side and a range condition): put {}:{} and {}:{} "
        "at the same place in both keys, or add to the condition a lower bound of {}:{} by "
        "{}:{}, e.g. \"{}:{} <= {}:{} + 60000\"{}",
        TypeName(c.type), me, other, c.left.name, SymmetricTimestampField(c, 0), c.right.name,
        SymmetricTimestampField(c, 1), me, my_ts, other, other_ts, other, other_ts, me, my_ts,
        c.condition.empty() ? " (there is no condition)"
                            : fmt::format(" (the condition \"{}\" has none)", c.condition)));
  }
}

void ValidateSymmetricHashJoinSelect(const SymmetricHashJoinBoltConfig& c,
                                     const SymmetricInputs& inputs) {
  const JoinPlan plan = PlanJoin(SymmetricAsJoinConfig(c), inputs);
  if (c.type == SymmetricJoinType::kLeftSemi || c.type == SymmetricJoinType::kLeftAnti) {
    const std::vector<FieldSelector> select = ParseSelect(c.select);
    for (std::size_t f = 0; f < plan.select.size(); ++f) {
      if (plan.select[f].input != 0) {
        throw std::invalid_argument(
            fmt::format("select: \"{}\" is a field of \"{}\", but a {} join emits left rows only",
                        select[f].output_name, c.right.name, TypeName(c.type)));
      }
    }
  }
}

SymmetricAppendEviction PlanSymmetricAppendEviction(const SymmetricHashJoinBoltConfig& c,
                                                    const SymmetricInputs& inputs) {
  const topology::Fields fields[2] = {SymmetricSideFields(c, c.left.name, inputs),
                                      SymmetricSideFields(c, c.right.name, inputs)};
  std::optional<int64_t> lead[2];  // side s: s.ts >= other.ts + lead[s]
  // Both timestamp fields as one key part: a pair has equal times.
  for (std::size_t p = 0; p < c.left.key.size() && p < c.right.key.size(); ++p) {
    if (c.left.key[p] == SymmetricTimestampField(c, 0) &&
        c.right.key[p] == SymmetricTimestampField(c, 1)) {
      lead[0] = 0;
      lead[1] = 0;
    }
  }
  if (!c.condition.empty()) {
    const ExprNode condition = ParseExpression(c.condition);
    const SymmetricHashJoinBoltConfig& config = c;
    const JoinTimeBounds bounds = SolveJoinTimeBounds(condition, [&](const ExprNode& f) {
      int side = -1;
      if (f.qualifier.empty()) {
        if (f.path.empty()) return -1;
        side = fields[0].Contains(f.path[0]) ? 0 : (fields[1].Contains(f.path[0]) ? 1 : -1);
      } else if (SameName(f.qualifier, config.left.name) || SameName(f.qualifier, "left")) {
        side = 0;
      } else if (SameName(f.qualifier, config.right.name) || SameName(f.qualifier, "right")) {
        side = 1;
      }
      if (side < 0 || f.path.size() != 1 || f.path[0] != SymmetricTimestampField(config, side)) {
        return -1;
      }
      return side;
    });
    for (int s = 0; s < 2; ++s) {
      if (bounds.min_lead[s] && (!lead[s] || *bounds.min_lead[s] > *lead[s])) {
        lead[s] = bounds.min_lead[s];
      }
    }
  }
  // A left row at ts pairs with right rows in [ts + lead[1], ts - lead[0]]; once the watermark
  // W is above ts - lead[0], no right row still to come (ts >= W) is in range.
  SymmetricAppendEviction out;
  if (lead[0]) {
    out.upper = -*lead[0];
    out.stay[0] = -*lead[0];
  }
  if (lead[1]) {
    out.lower = *lead[1];
    out.stay[1] = -*lead[1];
  }
  return out;
}

void ValidateSymmetricHashJoinFitsTopology(const SymmetricHashJoinBoltConfig& c,
                                           const SymmetricAppendEviction& eviction,
                                           const topology::TopologyConfig& topo) {
  if (c.mode != SymmetricJoinMode::kAppend || topo.acker_executors == 0) return;
  const int64_t timeout_ms = static_cast<int64_t>(topo.message_timeout_secs) * 1000;
  for (int side = 0; side < 2; ++side) {
    if (!eviction.stay[side]) continue;  // acked when processed
    const int64_t stay = std::max<int64_t>(*eviction.stay[side], 0);
    const int64_t held =
        topology::SaturatingAdd(topology::SaturatingAdd(stay, c.lag_ms), c.watermark_interval_ms);
    if (held > timeout_ms) {
      throw std::invalid_argument(fmt::format(
          "rows of \"{}\" stay in the join up to {} ms (time bound {} + lag_ms {} + "
          "watermark_interval_ms {}), more than topology.message.timeout.secs value {} ms: they "
          "would time out and be replayed while still held; raise topology.message.timeout.secs "
          "or tighten the condition's time bounds",
          side == 0 ? c.left.name : c.right.name, held, stay, c.lag_ms, c.watermark_interval_ms,
          timeout_ms));
    }
  }
}

SymmetricHashJoinBolt::SymmetricHashJoinBolt(SymmetricHashJoinBoltConfig config, WindowClock clock)
    : config_(std::move(config)), clock_(std::move(clock)) {
  ValidateSymmetricHashJoinBoltConfig(config_);
}

SymmetricHashJoinBolt::~SymmetricHashJoinBolt() = default;

void SymmetricHashJoinBolt::Prepare(const topology::TopologyContext& context,
                                    topology::OutputCollector& collector) {
  impl_ = config_.mode == SymmetricJoinMode::kAppend
              ? MakeAppendJoinRunner(config_, context, collector, clock_)
              : MakeChangelogJoinRunner(config_, context, collector, clock_);
}

void SymmetricHashJoinBolt::Execute(const Tuple& input) { impl_->Handle(input, nullptr); }
void SymmetricHashJoinBolt::ExecuteOwned(Tuple& input) { impl_->Handle(input, &input); }
void SymmetricHashJoinBolt::ExecuteBatch(const topology::RowBatch& rows,
                                         topology::BatchCollector& out) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const topology::RowRef row = rows[i];
    impl_->Handle(BatchInput{row, out});
  }
}
void SymmetricHashJoinBolt::OnSourceEnded(const std::string& component) {
  impl_->OnSourceEnded(component);
}
void SymmetricHashJoinBolt::OnEndOfStream() { impl_->OnEndOfStream(); }
void SymmetricHashJoinBolt::OnTick() { impl_->OnTick(); }

std::chrono::milliseconds SymmetricHashJoinBolt::TickInterval() const {
  int64_t period = 0;
  if (config_.mode == SymmetricJoinMode::kAppend) {
    for (const int64_t p : {config_.watermark_interval_ms, config_.idle_timeout_ms}) {
      if (p > 0 && (period == 0 || p < period)) period = p;
    }
  } else {
    // Expired rows are let go on ticks too.
    for (const int64_t ttl :
         {config_.state_ttl_ms, config_.left.state_ttl_ms, config_.right.state_ttl_ms}) {
      if (ttl > 0 && (period == 0 || ttl < period)) period = ttl;
    }
  }
  if (period > 100) period = 100;  // coarse periods still get a prompt look
  return std::chrono::milliseconds(period);
}

void SymmetricHashJoinBolt::DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const {
  std::vector<std::string> names;
  for (const FieldSelector& f : ParseSelect(config_.select)) names.push_back(f.output_name);
  if (config_.mode == SymmetricJoinMode::kChangelog) names.emplace_back(kOpField);
  declarer.DeclareStream(config_.output_stream, topology::Fields(std::move(names)));
}

}  // namespace tempest::bolts

namespace tempest::bolts {

SymmetricHashJoinBoltBuilder::SymmetricHashJoinBoltBuilder(JoinSelector selector,
                                                           SymmetricJoinInput left,
                                                           SymmetricJoinInput right) {
  config_.selector = selector;
  config_.left = std::move(left);
  config_.right = std::move(right);
}

SymmetricHashJoinBoltBuilder& SymmetricHashJoinBoltBuilder::Type(SymmetricJoinType type) {
  config_.type = type;
  return *this;
}
SymmetricHashJoinBoltBuilder& SymmetricHashJoinBoltBuilder::Mode(SymmetricJoinMode mode) {
  config_.mode = mode;
  return *this;
}
SymmetricHashJoinBoltBuilder& SymmetricHashJoinBoltBuilder::Condition(std::string condition) {
  config_.condition = std::move(condition);
  return *this;
}
SymmetricHashJoinBoltBuilder& SymmetricHashJoinBoltBuilder::StateTtl(int64_t ttl_ms) {
  config_.state_ttl_ms = ttl_ms;
  return *this;
}
SymmetricHashJoinBoltBuilder& SymmetricHashJoinBoltBuilder::Select(std::string fields) {
  config_.select = std::move(fields);
  return *this;
}
SymmetricHashJoinBoltBuilder& SymmetricHashJoinBoltBuilder::WithOutputStream(std::string stream) {
  config_.output_stream = std::move(stream);
  return *this;
}
SymmetricHashJoinBoltBuilder& SymmetricHashJoinBoltBuilder::WithTimestampField(std::string field) {
  config_.timestamp_field = std::move(field);
  return *this;
}
SymmetricHashJoinBoltBuilder& SymmetricHashJoinBoltBuilder::WithLag(int64_t lag_ms) {
  config_.lag_ms = lag_ms;
  return *this;
}
SymmetricHashJoinBoltBuilder& SymmetricHashJoinBoltBuilder::WithWatermarkInterval(
    int64_t interval_ms) {
  config_.watermark_interval_ms = interval_ms;
  return *this;
}
SymmetricHashJoinBoltBuilder& SymmetricHashJoinBoltBuilder::WithIdleTimeout(
    int64_t idle_timeout_ms) {
  config_.idle_timeout_ms = idle_timeout_ms;
  return *this;
}

topology::BoltFactory SymmetricHashJoinBoltBuilder::Build() const {
  ValidateSymmetricHashJoinBoltConfig(config_);  // now, not in every task
  const SymmetricHashJoinBoltConfig config = config_;
  return [config] { return std::make_unique<SymmetricHashJoinBolt>(config); };
}

}  // namespace tempest::bolts

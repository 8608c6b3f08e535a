#include "bolts/join/join_bolt.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

#include "bolts/join/field_selector.h"
#include "bolts/join/join_accumulator.h"
#include "bolts/join/join_plan.h"
#include "topology/topology_context.h"

namespace tempest::bolts {

void ValidateJoinBoltConfig(const JoinBoltConfig& c) {
  if (c.select.find_first_not_of(" \t,") == std::string::npos) {
    throw std::invalid_argument("Must specify output fields via .select() method.");
  }
  ValidateJoinClauses(c.from, c.joins);
  ParseSelect(c.select);
  ValidateWindowConfig(c.window);
}

JoinBolt::JoinBolt(JoinBoltConfig config) : config_(std::move(config)) {
  ValidateJoinBoltConfig(config_);
}

JoinBolt::~JoinBolt() = default;

void JoinBolt::Prepare(const topology::TopologyContext& context, PackedWindowCollector& collector) {
  std::vector<std::pair<topology::GlobalStreamId, topology::Fields>> inputs;
  std::vector<topology::GroupingSpec> groupings;
  const topology::ComponentSpec* self =
      topology::ContextAccess::Topology(context).Find(context.GetThisComponentId());
  for (const topology::InputSpec& in : self->inputs) {
    inputs.emplace_back(in.source,
                        context.GetComponentOutputFields(in.source.component, in.source.stream));
    groupings.push_back(in.grouping);
  }
  ValidateJoinInputs(config_, self->parallelism, inputs, groupings);
  accumulator_ = std::make_unique<JoinAccumulator>(config_, PlanJoin(config_, inputs), collector);
}

std::vector<uint8_t> JoinBolt::FieldsRead(const topology::StreamSchema& stream) const {
  if (!accumulator_) return {};  // not prepared
  return bolts::FieldsRead(accumulator_->plan(), stream, true);
}

void JoinBolt::Execute(const PackedWindow& window) {
  JoinAccumulator& join = *accumulator_;
  join.Build(window);
  const JoinPlan& plan = join.plan();
  if (plan.width == 1) {
    join.EmitRecords();
    return;
  }
  for (std::size_t j = 1; j < plan.width; ++j) {
    join.Probe(j);
    const JoinType type = plan.clauses[j].type;
    if (type == JoinType::kRight || type == JoinType::kFull) join.Pad(j);
  }
}

void JoinBolt::DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const {
  std::vector<std::string> names;
  for (const FieldSelector& f : ParseSelect(config_.select)) names.push_back(f.output_name);
  declarer.DeclareStream(config_.output_stream, topology::Fields(std::move(names)));
}

// Fluent builder.

JoinBoltBuilder::JoinBoltBuilder(JoinSelector selector, std::string from, std::string key)
    : JoinBoltBuilder(selector, std::move(from), std::vector<std::string>{std::move(key)}) {}

JoinBoltBuilder::JoinBoltBuilder(JoinSelector selector, std::string from,
                                 std::vector<std::string> key) {
  config_.selector = selector;
  config_.from = {std::move(from), std::move(key)};
  config_.window = WindowConfig::Tumbling(WindowSpan::Count(1));
}

JoinBoltBuilder& JoinBoltBuilder::Join(JoinType type, std::string name,
                                       std::vector<std::string> key, std::string with) {
  config_.joins.push_back({type, std::move(name), std::move(key), std::move(with)});
  try {
    ValidateJoinClauses(config_.from, config_.joins);
  } catch (...) {
    config_.joins.pop_back();
    throw;
  }
  return *this;
}
JoinBoltBuilder& JoinBoltBuilder::Join(std::string name, std::string key, std::string with) {
  return Join(JoinType::kInner, std::move(name), {std::move(key)}, std::move(with));
}
JoinBoltBuilder& JoinBoltBuilder::LeftJoin(std::string name, std::string key, std::string with) {
  return Join(JoinType::kLeft, std::move(name), {std::move(key)}, std::move(with));
}
JoinBoltBuilder& JoinBoltBuilder::RightJoin(std::string name, std::string key, std::string with) {
  return Join(JoinType::kRight, std::move(name), {std::move(key)}, std::move(with));
}
JoinBoltBuilder& JoinBoltBuilder::FullJoin(std::string name, std::string key, std::string with) {
  return Join(JoinType::kFull, std::move(name), {std::move(key)}, std::move(with));
}
JoinBoltBuilder& JoinBoltBuilder::Select(std::string fields) {
  ParseSelect(fields);
  config_.select = std::move(fields);
  return *this;
}
JoinBoltBuilder& JoinBoltBuilder::WithOutputStream(std::string stream) {
  config_.output_stream = std::move(stream);
  return *this;
}
JoinBoltBuilder& JoinBoltBuilder::WithNullProbeKeys(bool keep) {
  config_.keep_null_probe_keys = keep;
  return *this;
}
JoinBoltBuilder& JoinBoltBuilder::WithTumblingWindow(WindowSpan length) {
  return WithShape(WindowConfig::Type::kTumbling, length, length);
}
JoinBoltBuilder& JoinBoltBuilder::WithWindow(WindowSpan length, WindowSpan slide) {
  return WithShape(WindowConfig::Type::kSliding, length, slide);
}
// Sets the window's type and spans, keeping its event-time settings.
JoinBoltBuilder& JoinBoltBuilder::WithShape(WindowConfig::Type type, WindowSpan length,
                                            WindowSpan slide) {
  config_.window.type = type;
  config_.window.length = length;
  config_.window.slide = slide;
  return *this;
}
JoinBoltBuilder& JoinBoltBuilder::WithWindowConfig(WindowConfig window) {
  window.type = config_.window.type;
  window.length = config_.window.length;
  window.slide = config_.window.slide;
  config_.window = std::move(window);
  return *this;
}

topology::BoltFactory JoinBoltBuilder::Build() const {
  ValidateJoinBoltConfig(config_);
  if (config_.window.type == WindowConfig::Type::kSliding) {
    spdlog::warn(
        "JoinBolt with a sliding window: a pair of tuples in several windows is joined "
        "(and emitted) once per window");
  }
  const JoinBoltConfig config = config_;
  const topology::Fields late = late_fields_;
  const std::vector<LateRoute> routes = routes_;
  AdaptWindowedBolt(std::make_unique<JoinBolt>(config), config.window, late, routes);  // checks
  return [config, late, routes] {
    return AdaptWindowedBolt(std::make_unique<JoinBolt>(config), config.window, late, routes);
  };
}

JoinBoltBuilder& JoinBoltBuilder::WithLateTupleStream(std::string stream, topology::Fields fields) {
  config_.window.late_stream = std::move(stream);
  late_fields_ = std::move(fields);
  return *this;
}

JoinBoltBuilder& JoinBoltBuilder::WithLateTupleStream(const std::string& input, std::string stream,
                                                      topology::Fields fields) {
  bool found = config_.from.name == input;
  if (found) config_.from.late_stream = stream;
  for (JoinClause& j : config_.joins) {
    if (j.name == input) {
      j.late_stream = stream;
      found = true;
    }
  }
  if (!found) {
    throw std::invalid_argument(fmt::format("\"{}\" is not an input of the join", input));
  }
  routes_.push_back(
      {input, config_.selector == JoinSelector::kStream, std::move(stream), std::move(fields)});
  return *this;
}

std::vector<LateRoute> JoinLateRoutes(
    const JoinBoltConfig& config,
    const std::function<topology::Fields(const std::string& name)>& fields_of) {
  std::vector<LateRoute> routes;
  auto add = [&](const std::string& name, const std::string& stream) {
    if (stream.empty()) return;
    routes.push_back({name, config.selector == JoinSelector::kStream, stream, fields_of(name)});
  };
  add(config.from.name, config.from.late_stream);
  for (const JoinClause& j : config.joins) add(j.name, j.late_stream);
  return routes;
}

}  // namespace tempest::bolts

#include "bolts/join/interval_join_bolt_yaml.h"

#include <fmt/format.h>

#include <stdexcept>

#include "bolts/join/interval_join_bolt.h"
#include "bolts/join/join_plan.h"
#include "bolts/join/join_yaml_reading.h"

namespace tempest::bolts {

using topology::ConfigError;
using topology::ConfigNode;
using topology::ConfigReader;

namespace {

constexpr const char* kSideShape = "a map {name, key, timestamp_field, late_stream}";

struct SideNodes {
  const ConfigNode* map = nullptr;
  const ConfigNode* timestamp_field = nullptr;
  const ConfigNode* late_stream = nullptr;
};

IntervalJoinInput ReadSide(ConfigReader& c, const char* key, SideNodes& nodes) {
  nodes.map = &RequiredMap(c, key, kSideShape);
  ConfigReader r(*nodes.map);
  IntervalJoinInput in;
  in.name = r.RequiredString("name");
  in.key = ReadJoinKey(r);
  in.timestamp_field = r.String("timestamp_field", "");
  nodes.timestamp_field = r.Node("timestamp_field");
  in.late_stream = r.String("late_stream", "");
  nodes.late_stream = r.Node("late_stream");
  r.Finish();
  return in;
}

}  // namespace

topology::BoltFactory MakeIntervalJoinBolt(ConfigReader& c,
                                           const topology::ComponentContext& context) {
  IntervalJoinBoltConfig config;
  config.selector = ReadJoinSelector(c);
  SideNodes left_nodes, right_nodes;
  config.left = ReadSide(c, "left", left_nodes);
  config.right = ReadSide(c, "right", right_nodes);
  CheckAt(*right_nodes.map, [&] {
    if (config.left.name == config.right.name) {
      throw std::invalid_argument(fmt::format(
          "'{}' is already part of join. Cannot join with it more than once.", config.right.name));
    }
    const JoinClause clause{config.type, config.right.name, config.right.key, config.left.name};
    ValidateJoinClauses({config.left.name, config.left.key}, {clause});
  });
  const ConfigNode* lower = c.Node("lower_bound_ms");
  const ConfigNode* upper = c.Node("upper_bound_ms");
  if (lower == nullptr)
    c.Fail("lower_bound_ms", "missing key \"lower_bound_ms\": milliseconds, may be negative");
  if (upper == nullptr)
    c.Fail("upper_bound_ms", "missing key \"upper_bound_ms\": milliseconds, may be negative");
  config.lower_bound_ms = topology::ReadInt(*lower);
  config.upper_bound_ms = topology::ReadInt(*upper);
  config.lower_inclusive = c.Bool("lower_inclusive", true);
  config.upper_inclusive = c.Bool("upper_inclusive", true);
  config.type = ReadJoinType(c);
  const ConfigNode* select = c.Node("select");
  if (select == nullptr) {
    c.Fail("select", "missing key \"select\": the output fields, e.g. \"a:x, b:y AS z, _ts\"");
  }
  config.select = topology::ReadString(*select);
  config.output_stream = c.String("output_stream", std::string(topology::kDefaultStream));
  config.timestamp_field = c.String("timestamp_field", "");
  const ConfigNode* bolt_ts = c.Node("timestamp_field");
  config.lag_ms = c.IntAtLeast("lag_ms", 0, 0);
  config.watermark_interval_ms = c.IntAtLeast("watermark_interval_ms", 1000, 0);
  config.idle_timeout_ms = c.IntAtLeast("idle_timeout_ms", 0, 0);
  config.late_stream = c.String("late_stream", "");
  const ConfigNode* bolt_late = c.Node("late_stream");

  // The checks, each at the node a user would fix.
  CheckAt(*lower, [&] {
    if (config.lower_bound_ms > config.upper_bound_ms) ValidateIntervalJoinBoltConfig(config);
    const IntervalBounds b = EffectiveBounds(config);
    if (b.lower > b.upper) ValidateIntervalJoinBoltConfig(config);
  });
  for (const auto* side : {&config.left, &config.right}) {
    const SideNodes& nodes = side == &config.left ? left_nodes : right_nodes;
    if (side->timestamp_field.empty() && config.timestamp_field.empty()) {
      throw ConfigError(*nodes.map,
                        fmt::format("\"{}\" has no event time: set timestamp_field here, or for "
                                    "both sides at the bolt level",
                                    side->name));
    }
  }
  CheckAt(*select, [&] { ValidateIntervalJoinBoltConfig(config); });
  CheckAt(c.node(), [&] {
    JoinBoltConfig as_join;  // the grouping and input-name checks are the N-way join's
    as_join.selector = config.selector;
    as_join.from = {config.left.name, config.left.key};
    as_join.joins.push_back({config.type, config.right.name, config.right.key, config.left.name});
    ValidateJoinInputs(as_join, context.parallelism, context.inputs, context.groupings);
  });
  // Each input declares its side's timestamp field; late streams take their side's fields.
  topology::Fields fields[2];
  for (const auto& [stream, f] : context.inputs) {
    const std::string& name = JoinInputName(config.selector, stream);
    const int s = name == config.left.name ? 0 : 1;
    const IntervalJoinInput& side = s == 0 ? config.left : config.right;
    const SideNodes& nodes = s == 0 ? left_nodes : right_nodes;
    const std::string& ts =
        side.timestamp_field.empty() ? config.timestamp_field : side.timestamp_field;
    if (!f.Contains(ts)) {
      const ConfigNode* at = side.timestamp_field.empty() ? bolt_ts : nodes.timestamp_field;
      throw ConfigError(*at, fmt::format("field \"{}\" is not declared by \"{}\" (declared: {})",
                                         ts, stream.component, fmt::join(f.names(), ", ")));
    }
    if (fields[s].size() > 0 && fields[s] != f) {
      const ConfigNode* at = nodes.late_stream != nullptr ? nodes.late_stream : bolt_late;
      if (at != nullptr && !(side.late_stream.empty() && config.late_stream.empty())) {
        throw ConfigError(*at, fmt::format("late_stream of \"{}\": its streams have different "
                                           "fields ({} and {})",
                                           name, fields[s].ToString(), f.ToString()));
      }
    }
    fields[s] = f;
  }
  if (bolt_late != nullptr && fields[0] != fields[1] &&
      (config.left.late_stream.empty() || config.right.late_stream.empty())) {
    throw ConfigError(*bolt_late,
                      fmt::format("a bolt-level late_stream forwards late tuples unchanged, so "
                                  "both sides need the same fields; \"{}\" has {} but \"{}\" has "
                                  "{} (or give each side its own late_stream)",
                                  config.left.name, fields[0].ToString(), config.right.name,
                                  fields[1].ToString()));
  }
  CheckAt(*select, [&] {
    ValidateIntervalJoinInputs(config, context.parallelism, context.inputs, context.groupings);
  });
  if (context.topology != nullptr) {
    const IntervalBounds b = EffectiveBounds(config);
    CheckAt(b.upper >= -b.lower ? *upper : *lower,
            [&] { ValidateIntervalJoinFitsTopology(config, *context.topology); });
  }
  CheckAt(c.node(), [&] { IntervalJoinBolt check(config, fields[0], fields[1]); });
  return [config, left = fields[0], right = fields[1]] {
    return std::make_unique<IntervalJoinBolt>(config, left, right);
  };
}

}  // namespace tempest::bolts

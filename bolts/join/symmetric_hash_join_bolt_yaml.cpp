#include "bolts/join/symmetric_hash_join_bolt_yaml.h"

#include <fmt/format.h>

#include <stdexcept>

#include "bolts/expression/expression.h"
#include "bolts/join/join_yaml_reading.h"
#include "bolts/join/symmetric_hash_join_bolt.h"

namespace tempest::bolts {

using topology::ConfigError;
using topology::ConfigNode;
using topology::ConfigReader;

namespace {

struct SideNodes {
  const ConfigNode* map = nullptr;
  const ConfigNode* timestamp_field = nullptr;
  const ConfigNode* unique = nullptr;
  const ConfigNode* state_ttl_ms = nullptr;
};

SymmetricJoinInput ReadSide(ConfigReader& c, const char* key, SideNodes& nodes) {
  nodes.map = &RequiredMap(c, key, "a map {name, key, timestamp_field, unique, state_ttl_ms}");
  ConfigReader r(*nodes.map);
  SymmetricJoinInput in;
  in.name = r.RequiredString("name");
  in.key = ReadJoinKey(r);
  in.timestamp_field = r.String("timestamp_field", "");
  nodes.timestamp_field = r.Node("timestamp_field");
  in.unique = r.Bool("unique", false);
  nodes.unique = r.Node("unique");
  in.state_ttl_ms = r.IntAtLeast("state_ttl_ms", -1, 0);
  nodes.state_ttl_ms = r.Node("state_ttl_ms");
  r.Finish();
  return in;
}

}  // namespace

topology::BoltFactory MakeSymmetricHashJoinBolt(ConfigReader& c,
                                                const topology::ComponentContext& context) {
  SymmetricHashJoinBoltConfig config;
  config.selector = ReadJoinSelector(c);
  SideNodes left_nodes, right_nodes;
  config.left = ReadSide(c, "left", left_nodes);
  config.right = ReadSide(c, "right", right_nodes);
  const ConfigNode* right = right_nodes.map;
  const std::string type = c.String("type", "inner");
  if (type == "inner") {
    config.type = SymmetricJoinType::kInner;
  } else if (type == "left") {
    config.type = SymmetricJoinType::kLeft;
  } else if (type == "right") {
    config.type = SymmetricJoinType::kRight;
  } else if (type == "full") {
    config.type = SymmetricJoinType::kFull;
  } else if (type == "left_semi") {
    config.type = SymmetricJoinType::kLeftSemi;
  } else if (type == "left_anti") {
    config.type = SymmetricJoinType::kLeftAnti;
  } else {
    c.Fail("type", fmt::format("expected inner, left, right, full, left_semi or left_anti, found "
                               "\"{}\"",
                               type));
  }
  const std::string mode = c.RequiredString("mode");
  if (mode == "append") {
    config.mode = SymmetricJoinMode::kAppend;
  } else if (mode == "changelog") {
    config.mode = SymmetricJoinMode::kChangelog;
  } else {
    c.Fail("mode", fmt::format("expected append or changelog, found \"{}\"", mode));
  }
  config.condition = c.String("condition", "");
  config.state_ttl_ms = c.IntAtLeast("state_ttl_ms", 0, 0);
  const ConfigNode* select = c.Node("select");
  if (select == nullptr) {
    c.Fail("select", "missing key \"select\": the output fields, e.g. \"a:x, b:y AS z\"");
  }
  config.select = topology::ReadString(*select);
  config.output_stream = c.String("output_stream", std::string(topology::kDefaultStream));
  config.timestamp_field = c.String("timestamp_field", "");
  config.lag_ms = c.IntAtLeast("lag_ms", 0, 0);
  config.watermark_interval_ms = c.IntAtLeast("watermark_interval_ms", 1000, 0);
  config.idle_timeout_ms = c.IntAtLeast("idle_timeout_ms", 0, 0);

  CheckAt(*right, [&] {
    const JoinClause clause{JoinType::kInner, config.right.name, config.right.key,
                            config.left.name};
    ValidateJoinClauses({config.left.name, config.left.key}, {clause});
  });
  const bool append = config.mode == SymmetricJoinMode::kAppend;
  // A setting of the other mode, at its node.
  const ConfigNode* other_mode[] = {append ? c.Node("state_ttl_ms") : nullptr,
                                    append ? left_nodes.unique : nullptr,
                                    append ? right_nodes.unique : nullptr,
                                    append ? left_nodes.state_ttl_ms : nullptr,
                                    append ? right_nodes.state_ttl_ms : nullptr,
                                    append ? nullptr : c.Node("timestamp_field"),
                                    append ? nullptr : left_nodes.timestamp_field,
                                    append ? nullptr : right_nodes.timestamp_field,
                                    append ? nullptr : c.Node("lag_ms"),
                                    append ? nullptr : c.Node("watermark_interval_ms"),
                                    append ? nullptr : c.Node("idle_timeout_ms")};
  for (const ConfigNode* n : other_mode) {
    if (n == nullptr) continue;
    if (!append && n == c.Node("watermark_interval_ms")) {
      throw ConfigError(*n,
                        "watermark_interval_ms is for mode append: mode changelog works in "
                        "processing time (rows stay until retracted or until state_ttl_ms)");
    }
    CheckAt(*n, [&] { ValidateSymmetricHashJoinBoltConfig(config); });
  }
  if (append) {
    for (const SideNodes* nodes : {&left_nodes, &right_nodes}) {
      const SymmetricJoinInput& side = nodes == &left_nodes ? config.left : config.right;
      if (side.timestamp_field.empty() && config.timestamp_field.empty()) {
        throw ConfigError(*nodes->map,
                          fmt::format("\"{}\" has no event time: mode append needs "
                                      "timestamp_field, here or for both sides at the bolt level",
                                      side.name));
      }
    }
    CheckAt(*c.Node("mode"), [&] { ValidateSymmetricHashJoinBoltConfig(config); });
  }
  if (!config.condition.empty()) {
    CheckAt(*c.Node("condition"), [&] { ParseExpression(config.condition); });
  }
  CheckAt(*select, [&] { ValidateSymmetricHashJoinBoltConfig(config); });
  CheckAt(c.node(), [&] {
    JoinBoltConfig as_join;  // the grouping and input-name checks are the N-way join's
    as_join.selector = config.selector;
    as_join.from = {config.left.name, config.left.key};
    as_join.joins.push_back(
        {JoinType::kInner, config.right.name, config.right.key, config.left.name});
    ValidateJoinInputs(as_join, context.parallelism, context.inputs, context.groupings);
  });
  const ConfigNode& checks_at = config.condition.empty() ? *select : *c.Node("condition");
  CheckAt(*select, [&] { ValidateSymmetricHashJoinSelect(config, context.inputs); });
  // A missing time bound is the condition's to fix (or the type's, without a condition).
  const ConfigNode* type_node = c.Node("type");
  const ConfigNode& bound_at = !config.condition.empty() ? *c.Node("condition")
                               : type_node != nullptr    ? *type_node
                                                         : c.node();
  CheckAt(checks_at, [&] {
    try {
      ValidateSymmetricHashJoinInputs(config, context.parallelism, context.inputs,
                                      context.groupings);
    } catch (const UnboundedAppendJoinError& e) {
      throw ConfigError(bound_at, e.what());
    }
  });
  if (append && context.topology != nullptr) {
    CheckAt(*c.Node("mode"), [&] {
      ValidateSymmetricHashJoinFitsTopology(
          config, PlanSymmetricAppendEviction(config, context.inputs), *context.topology);
    });
  }
  return [config] { return std::make_unique<SymmetricHashJoinBolt>(config); };
}

}  // namespace tempest::bolts

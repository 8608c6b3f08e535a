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

SymmetricJoinInput ReadSide(ConfigReader& c, const char* key, const ConfigNode*& node) {
  node = &RequiredMap(c, key, "a map {name, key, timestamp_field, unique}");
  ConfigReader r(*node);
  SymmetricJoinInput in;
  in.name = r.RequiredString("name");
  in.key = ReadJoinKey(r);
  in.timestamp_field = r.String("timestamp_field", "");
  in.unique = r.Bool("unique", false);
  r.Finish();
  return in;
}

}  // namespace

topology::BoltFactory MakeSymmetricHashJoinBolt(ConfigReader& c,
                                                const topology::ComponentContext& context) {
  SymmetricHashJoinBoltConfig config;
  config.selector = ReadJoinSelector(c);
  const ConfigNode* left = nullptr;
  const ConfigNode* right = nullptr;
  config.left = ReadSide(c, "left", left);
  config.right = ReadSide(c, "right", right);
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

  CheckAt(*right, [&] {
    const JoinClause clause{JoinType::kInner, config.right.name, config.right.key,
                            config.left.name};
    ValidateJoinClauses({config.left.name, config.left.key}, {clause});
  });
  if (config.mode == SymmetricJoinMode::kAppend) {
    CheckAt(*c.Node("mode"), [&] { ValidateSymmetricHashJoinBoltConfig(config); });
  }
  if (config.type == SymmetricJoinType::kLeftSemi || config.type == SymmetricJoinType::kLeftAnti) {
    CheckAt(*c.Node("type"), [&] { ValidateSymmetricHashJoinBoltConfig(config); });
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
  CheckAt(checks_at, [&] {
    ValidateSymmetricHashJoinInputs(config, context.parallelism, context.inputs, context.groupings);
  });
  return [config] { return std::make_unique<SymmetricHashJoinBolt>(config); };
}

}  // namespace tempest::bolts

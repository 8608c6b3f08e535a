#include "bolts/join/join_bolt_yaml.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "bolts/join/join_bolt.h"
#include "bolts/join/join_plan.h"
#include "bolts/join/join_yaml_reading.h"
#include "bolts/windowing/window_config_yaml.h"

namespace tempest::bolts {

using topology::ConfigError;
using topology::ConfigNode;
using topology::ConfigReader;

topology::BoltFactory MakeJoinBolt(ConfigReader& c, const topology::ComponentContext& context) {
  JoinBoltConfig config;
  config.selector = ReadJoinSelector(c);
  const ConfigNode& from = RequiredMap(c, "from", "a map {name, key}");
  {
    ConfigReader r(from);
    config.from.name = r.RequiredString("name");
    config.from.key = ReadJoinKey(r);
    config.from.late_stream = r.String("late_stream", "");
    r.Finish();
  }
  std::vector<const ConfigNode*> join_nodes;
  if (const ConfigNode* joins = c.Node("joins"); joins != nullptr) {
    if (joins->kind != ConfigNode::Kind::kSequence) {
      throw ConfigError(
          *joins,
          fmt::format("expected a list of {{type, name, key, with}}, found {}", joins->Describe()));
    }
    for (const ConfigNode& j : joins->items) {
      if (j.kind != ConfigNode::Kind::kMap) {
        throw ConfigError(
            j, fmt::format("expected a map {{type, name, key, with}}, found {}", j.Describe()));
      }
      ConfigReader r(j);
      JoinClause clause;
      clause.type = ReadJoinType(r);
      clause.name = r.RequiredString("name");
      clause.key = ReadJoinKey(r);
      clause.with = r.RequiredString("with");
      clause.late_stream = r.String("late_stream", "");
      r.Finish();
      // Storm's checks, at this entry.
      config.joins.push_back(std::move(clause));
      try {
        ValidateJoinClauses(config.from, config.joins);
      } catch (const std::invalid_argument& e) {
        throw ConfigError(j, e.what());
      }
      join_nodes.push_back(&j);
    }
  }
  const ConfigNode* select = c.Node("select");
  if (select == nullptr) c.Fail("select", "Must specify output fields via .select() method.");
  config.select = topology::ReadString(*select);
  config.output_stream = c.String("output_stream", std::string(topology::kDefaultStream));
  const std::string nulls = c.String("null_probe_keys", "drop");
  if (nulls == "keep") {
    config.keep_null_probe_keys = true;
  } else if (nulls != "drop") {
    c.Fail("null_probe_keys", fmt::format("expected drop or keep, found \"{}\"", nulls));
  }
  config.window = ReadWindowConfig(c, context);

  auto at = [&](const ConfigNode& node, auto&& check) {
    try {
      check();
    } catch (const std::invalid_argument& e) {
      throw ConfigError(node, e.what());
    }
  };
  at(*select, [&] { ValidateJoinBoltConfig(config); });
  at(c.node(),
     [&] { ValidateJoinInputs(config, context.parallelism, context.inputs, context.groupings); });
  at(*select, [&] { PlanJoin(config, context.inputs); });
  if (config.window.type == WindowConfig::Type::kSliding) {
    spdlog::warn(
        "{}: JoinBolt \"{}\" has a sliding window: a pair of tuples in several windows "
        "is joined (and emitted) once per window",
        c.node().mark.file, context.id);
  }
  topology::Fields late;
  if (!config.window.late_stream.empty() && !context.inputs.empty()) {
    late = context.inputs.front().second;
  }
  // Per-input late streams carry that input's fields.
  std::vector<LateRoute> routes;
  at(from, [&] {
    routes = JoinLateRoutes(config, [&](const std::string& name) {
      if (!config.window.event_time()) {
        throw std::invalid_argument(fmt::format(
            "late_stream of \"{}\" needs timestamp_field: only event time has late tuples", name));
      }
      const topology::Fields* fields = nullptr;
      for (const auto& [stream, f] : context.inputs) {
        if (JoinInputName(config.selector, stream) != name) continue;
        if (fields != nullptr && *fields != f) {
          throw std::invalid_argument(
              fmt::format("late_stream of \"{}\": its streams have different fields ({} and {})",
                          name, fields->ToString(), f.ToString()));
        }
        fields = &f;
      }
      return fields != nullptr ? *fields : topology::Fields();
    });
    AdaptWindowedBolt(std::make_unique<JoinBolt>(config), config.window, late, routes);
  });
  return [config, late, routes] {
    return AdaptWindowedBolt(std::make_unique<JoinBolt>(config), config.window, late, routes);
  };
}

}  // namespace tempest::bolts

#include "bolts/builtin_bolts.h"

#include <fmt/format.h>

#include <stdexcept>

#include "bolts/chaos_bolt.h"
#include "bolts/file_sink.h"
#include "bolts/filter_bolt.h"
#include "bolts/identity_bolt.h"
#include "bolts/join/interval_join_bolt_yaml.h"
#include "bolts/join/join_bolt_yaml.h"
#include "bolts/join/symmetric_hash_join_bolt_yaml.h"
#include "bolts/log_info_bolt.h"
#include "bolts/null_bolt.h"
#include "bolts/stdout_sink.h"
#include "bolts/test_word_counter.h"
#include "bolts/windowing/window_config_yaml.h"
#include "bolts/windowing/window_inspect_bolt.h"
#include "topology/config_node.h"

namespace tempest::bolts {

using topology::BoltFactory;
using topology::ComponentContext;
using topology::ConfigReader;
using topology::Fields;

namespace {

// Bolts that pass their input through declare its fields, so every input must have the same.
Fields PassThroughFields(const ConfigReader& c, const ComponentContext& context,
                         const char* class_name) {
  if (context.inputs.empty()) {
    throw topology::ConfigError(c.node(), fmt::format("{} \"{}\" has no input stream to pass "
                                                      "through",
                                                      class_name, context.id));
  }
  const Fields& first = context.inputs.front().second;
  for (const auto& [stream, fields] : context.inputs) {
    if (fields != first) {
      throw topology::ConfigError(
          c.node(), fmt::format("{} \"{}\" passes its input through, so all its inputs need the "
                                "same fields; \"{}\" has {} but \"{}\" has {}",
                                class_name, context.id, context.inputs.front().first.component,
                                first.ToString(), stream.component, fields.ToString()));
    }
  }
  return first;
}

}  // namespace

void RegisterBuiltinBolts(topology::ComponentRegistry& registry) {
  if (registry.FindBolt("NullBolt") != nullptr) return;
  registry.AddBolt<NullBolt>("NullBolt");
  registry.AddBolt("IdentityBolt", [](ConfigReader& c, const ComponentContext& context) {
    Fields fields = PassThroughFields(c, context, "IdentityBolt");
    return BoltFactory([fields] { return std::make_unique<IdentityBolt>(fields); });
  });
  registry.AddBolt("ChaosBolt", [](ConfigReader& c, const ComponentContext& context) {
    ChaosBoltConfig chaos;
    chaos.fail_fraction = c.Double("fail_fraction", 0);
    chaos.throw_fraction = c.Double("throw_fraction", 0);
    chaos.delay_ms = c.IntAtLeast("delay_ms", 0, 0);
    chaos.seed = static_cast<uint64_t>(c.Int("seed", 0));
    chaos.exit_after = c.IntAtLeast("exit_after", 0, 0);
    for (const char* key : {"fail_fraction", "throw_fraction"}) {
      const double v = c.Double(key, 0);
      if (!(v >= 0 && v <= 1))
        c.Fail(key, fmt::format("expected a fraction in [0, 1], found {}", v));
    }
    try {
      ValidateChaosBoltConfig(chaos);
    } catch (const std::invalid_argument& e) {
      throw topology::ConfigError(c.node(), e.what());
    }
    Fields fields = PassThroughFields(c, context, "ChaosBolt");
    return BoltFactory([chaos, fields] { return std::make_unique<ChaosBolt>(chaos, fields); });
  });
  registry.AddBolt("FilterBolt", [](ConfigReader& c, const ComponentContext& context) {
    FilterBoltConfig filter;
    filter.condition = c.RequiredString("condition");
    filter.output_stream = c.String("output_stream", std::string(topology::kDefaultStream));
    Fields fields = PassThroughFields(c, context, "FilterBolt");
    try {
      FilterBolt check(filter, fields);
    } catch (const ExpressionError& e) {
      c.Fail("condition", e.what());
    }
    return BoltFactory([filter, fields] { return std::make_unique<FilterBolt>(filter, fields); });
  });
  registry.AddBolt("FileSink", [](ConfigReader& c, const ComponentContext& context) {
    FileSinkConfig sink;
    sink.path = context.ResolvePath(c.RequiredString("path"));
    try {
      context.ClaimFile(sink.path, true);
    } catch (const std::invalid_argument& e) {
      c.Fail("path", e.what());
    }
    sink.flush_ms = c.IntAtLeast("flush_ms", 100, 0);
    return BoltFactory([sink] { return std::make_unique<FileSink>(sink); });
  });
  registry.AddBolt("WindowInspectBolt", [](ConfigReader& c, const ComponentContext& context) {
    WindowInspectConfig inspect;
    inspect.window = ReadWindowConfig(c, context);
    inspect.field = c.RequiredString("field");
    inspect.output_stream = c.String("output_stream", std::string(topology::kDefaultStream));
    bool declared = context.inputs.empty();
    for (const auto& [stream, fields] : context.inputs)
      declared = declared || fields.Contains(inspect.field);
    if (!declared) {
      c.Fail("field",
             fmt::format("field \"{}\" is not declared by any input of \"{}\" ({})", inspect.field,
                         context.id, context.inputs.front().second.ToString()));
    }
    if (inspect.output_stream == inspect.window.late_stream) {
      c.Fail("late_stream",
             fmt::format("late_stream and output_stream are both \"{}\"", inspect.output_stream));
    }
    Fields late = inspect.window.late_stream.empty() || context.inputs.empty()
                      ? Fields()
                      : context.inputs.front().second;
    if (!inspect.window.late_stream.empty() && late.size() == 0) {
      c.Fail("late_stream", "a late stream needs an input to take its fields from");
    }
    return BoltFactory([inspect, late] {
      return AdaptWindowedBolt(std::make_unique<WindowInspectBolt>(inspect), inspect.window, late);
    });
  });
  registry.AddBolt("JoinBolt", MakeJoinBolt);
  registry.AddBolt("IntervalJoinBolt", MakeIntervalJoinBolt);
  registry.AddBolt("SymmetricHashJoinBolt", MakeSymmetricHashJoinBolt);
  registry.AddBolt<StdoutSink>("StdoutSink");
  registry.AddBolt<TestWordCounter>("TestWordCounter");
  registry.AddBolt<LogInfoBolt>("LogInfoBolt");
}

}  // namespace tempest::bolts

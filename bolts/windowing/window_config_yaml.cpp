#include "bolts/windowing/window_config_yaml.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

namespace tempest::bolts {

using topology::ConfigError;
using topology::ConfigNode;
using topology::ConfigReader;

namespace {

// `{count: N}` or `{duration_ms: N}`.
WindowSpan ReadSpan(const ConfigNode& node, const char* what) {
  if (node.kind != ConfigNode::Kind::kMap || node.members.size() != 1) {
    throw ConfigError(node, fmt::format("expected the {} as {{count: N}} or {{duration_ms: N}}, "
                                        "found {}",
                                        what, node.Describe()));
  }
  ConfigReader r(node);
  WindowSpan span;
  if (r.Has("count")) {
    span = WindowSpan::Count(r.IntAtLeast("count", 1, 1));
  } else if (r.Has("duration_ms")) {
    span = WindowSpan::DurationMs(r.IntAtLeast("duration_ms", 1, 1));
  } else {
    r.Node("count");  // known keys, for the "did you mean" below
    r.Node("duration_ms");
  }
  r.Finish();  // any other key: unknown, with a "did you mean"
  return span;
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

WindowConfig ReadWindowConfig(ConfigReader& c, const topology::ComponentContext& context) {
  WindowConfig config;
  const ConfigNode* window = c.Node("window");
  if (window == nullptr) {
    c.Fail("window",
           "missing key \"window\": expected {type: tumbling|sliding, length: "
           "{count: N} | {duration_ms: N}, slide: ...}");
  }
  if (window->kind != ConfigNode::Kind::kMap) {
    throw ConfigError(*window, fmt::format("expected a map {{type, length, slide}}, found {}",
                                           window->Describe()));
  }
  ConfigReader w(*window);
  const std::string type = w.RequiredString("type");
  if (type == "tumbling") {
    config.type = WindowConfig::Type::kTumbling;
  } else if (type == "sliding") {
    config.type = WindowConfig::Type::kSliding;
  } else {
    w.Fail("type", fmt::format("expected tumbling or sliding, found \"{}\"", type));
  }
  const ConfigNode* length = w.Node("length");
  if (length == nullptr) w.Fail("length", "missing key \"length\": {count: N} or {duration_ms: N}");
  config.length = ReadSpan(*length, "length");
  const ConfigNode* slide = w.Node("slide");
  if (config.type == WindowConfig::Type::kTumbling) {
    if (slide != nullptr) {
      throw ConfigError(*slide,
                        "a tumbling window slides by its length: remove \"slide\" or use "
                        "type: sliding");
    }
    config.slide = config.length;
  } else {
    // Storm's withWindow(length): a sliding window that slides with every tuple.
    config.slide = slide != nullptr ? ReadSpan(*slide, "slide") : WindowSpan::Count(1);
  }
  w.Finish();

  config.timestamp_field = c.String("timestamp_field", "");
  config.lag_ms = c.IntAtLeast("lag_ms", 0, 0);
  config.watermark_interval_ms = c.IntAtLeast("watermark_interval_ms", 1000, 0);
  config.idle_timeout_ms = c.IntAtLeast("idle_timeout_ms", 0, 0);
  config.late_stream = c.String("late_stream", "");
  if (config.timestamp_field.empty()) {
    for (const char* key : {"lag_ms", "watermark_interval_ms", "idle_timeout_ms", "late_stream"}) {
      if (c.Has(key)) c.Fail(key, fmt::format("{} needs timestamp_field (event time)", key));
    }
  }
  for (const auto& [stream, fields] : context.inputs) {
    if (!config.timestamp_field.empty() && !fields.Contains(config.timestamp_field)) {
      c.Fail("timestamp_field",
             fmt::format("field \"{}\" is not declared by \"{}\" (declared: {})",
                         config.timestamp_field, stream.component, Join(fields.names())));
    }
  }
  if (!config.late_stream.empty() && !context.inputs.empty()) {
    const topology::Fields& first = context.inputs.front().second;
    for (const auto& [stream, fields] : context.inputs) {
      if (fields != first) {
        c.Fail("late_stream",
               fmt::format("a bolt-level late_stream forwards late tuples unchanged, so all "
                           "inputs need the same fields; \"{}\" has {} but \"{}\" has {}",
                           context.inputs.front().first.component, first.ToString(),
                           stream.component, fields.ToString()));
      }
    }
  }
  try {
    ValidateWindowConfig(config);
    if (context.topology != nullptr) ValidateWindowFitsTopology(config, *context.topology);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(*window, e.what());
  }
  if (context.topology != nullptr) {
    if (const std::string warning = WindowMemoryWarning(config, *context.topology);
        !warning.empty()) {
      spdlog::warn("{}; it may run out of memory", ConfigError(*window, warning).what());
    }
  }
  return config;
}

}  // namespace tempest::bolts

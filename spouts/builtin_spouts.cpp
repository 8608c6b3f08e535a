#include "spouts/builtin_spouts.h"

#include <fmt/format.h>

#include <stdexcept>

#include "spouts/file_spout.h"
#include "spouts/generator_spout.h"
#include "spouts/test_word_spout.h"

namespace tempest::spouts {

using topology::ComponentContext;
using topology::ConfigError;
using topology::ConfigNode;
using topology::ConfigReader;
using topology::SpoutFactory;

namespace {

SpoutFactory MakeGeneratorSpout(ConfigReader& c, const ComponentContext&) {
  GeneratorSpoutConfig g;
  g.count = static_cast<uint64_t>(c.IntAtLeast("count", 0, 0));
  g.rate_per_sec = static_cast<uint64_t>(c.IntAtLeast("rate_per_sec", 0, 0));
  g.keys = static_cast<uint64_t>(c.IntAtLeast("keys", 1000, 1));
  g.payload_bytes = static_cast<uint64_t>(c.IntAtLeast("payload_bytes", 16, 0));
  g.start_ts = c.Int("start_ts", 0);
  g.ts_step_ms = c.Int("ts_step_ms", 1);
  g.stream = c.String("stream", "default");
  return [g] { return std::make_unique<GeneratorSpout>(g); };
}

SpoutFactory MakeFileSpout(ConfigReader& c, const ComponentContext& context) {
  FileSpoutConfig f;
  f.path = context.ResolvePath(c.RequiredString("path"));
  try {
    context.ClaimFile(f.path, false);
  } catch (const std::invalid_argument& e) {
    c.Fail("path", e.what());
  }
  f.format = c.String("format", "");
  if (!f.format.empty() && f.format != "jsonl" && f.format != "csv") {
    c.Fail("format", fmt::format("expected jsonl or csv, found \"{}\"", f.format));
  }
  f.stream = c.String("stream", "default");
  f.fields = c.StringList("fields");
  if (const ConfigNode* streams = c.Node("streams")) {
    if (streams->kind != ConfigNode::Kind::kMap) {
      throw ConfigError(*streams, fmt::format("expected a map of stream name to its fields, "
                                              "found {}",
                                              streams->Describe()));
    }
    for (const auto& [name, fields] : streams->members) {
      f.streams.emplace_back(name, topology::ReadStringList(fields));
    }
  }
  f.stream_field = c.String("stream_field", "");
  f.max_line_bytes = c.IntAtLeast("max_line_bytes", FileSpoutConfig::kDefaultMaxLineBytes, 1);
  if (c.Has("fields") && c.Has("streams")) {
    c.Fail("streams", "\"fields\" and \"streams\" are alternatives: give one of them");
  }
  if (!c.Has("fields") && !c.Has("streams")) {
    c.Fail("", "missing required key \"fields\" (or \"streams\" with \"stream_field\")");
  }
  if (c.Has("streams") && f.stream_field.empty()) {
    c.Fail("streams",
           "\"streams\" needs \"stream_field\": the field that names each line's stream");
  }
  if (!c.Has("streams") && c.Has("stream_field")) {
    c.Fail("stream_field", "\"stream_field\" goes with \"streams\"");
  }
  try {
    ValidateFileSpoutConfig(f);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(c.node(), e.what());
  }
  return [f] { return std::make_unique<FileSpout>(f); };
}

SpoutFactory MakeTestWordSpout(ConfigReader& c, const ComponentContext&) {
  TestWordSpoutConfig t;
  t.count = static_cast<uint64_t>(c.IntAtLeast("count", 0, 0));
  t.interval_ms = c.IntAtLeast("interval_ms", 100, 0);
  t.seed = static_cast<uint64_t>(c.Int("seed", 0));
  return [t] { return std::make_unique<TestWordSpout>(t); };
}

}  // namespace

void RegisterBuiltinSpouts(topology::ComponentRegistry& registry) {
  if (registry.FindSpout("GeneratorSpout") != nullptr) return;
  registry.AddSpout("GeneratorSpout", MakeGeneratorSpout);
  registry.AddSpout("FileSpout", MakeFileSpout);
  registry.AddSpout("TestWordSpout", MakeTestWordSpout);
}

}  // namespace tempest::spouts

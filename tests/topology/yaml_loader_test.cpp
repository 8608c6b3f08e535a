// The YAML loader: the topology it builds, includes, ${...} substitution, and the table of bad
// topologies in tests/data/bad, each with the exact error it must produce.
#include "topology/yaml_loader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "../support/data_dir.h"
#include "bolts/builtin_bolts.h"
#include "spouts/builtin_spouts.h"
#include "topology/config_node.h"

namespace tempest::topology {
namespace {

using testing::DataDir;
using testing::TempDir;

class YamlLoaderTest : public ::testing::Test {
 protected:
  YamlLoaderTest() {
    spouts::RegisterBuiltinSpouts(registry_);
    bolts::RegisterBuiltinBolts(registry_);
    options_.registry = &registry_;
  }

  std::string Error(const std::string& file) {
    try {
      LoadTopology(file, options_);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "(no error)";
  }

  ComponentRegistry registry_;
  LoadOptions options_;
  TempDir dir_;
};

TEST_F(YamlLoaderTest, BuildsTheSameSpecAsTheBuilder) {
  const std::string file = dir_.Write("t.yaml", R"(
name: clicks
config:
  topology.workers: 3
  topology.max.spout.pending: 500
  topology.debug: false
  topology.wait.yield.micros: 7
  topology.executor.receive.buffer.size: 65536
  topology.chaining: true
  my.threshold: 0.5
spouts:
  - id: gen
    className: GeneratorSpout
    parallelism: 2
    config: {count: 10, stream: events}
bolts:
  - id: pass
    className: IdentityBolt
    parallelism: 4
  - id: sink
    className: NullBolt
streams:
  - from: gen
    to: pass
    streamId: events
    grouping: {type: FIELDS, args: [key, ts]}
  - from: pass
    to: sink
    grouping: {type: PARTIAL_KEY, args: [id]}
)");
  const auto spec = LoadTopology(file, options_);
  EXPECT_EQ(spec->name, "clicks");
  EXPECT_EQ(spec->config.workers, 3);
  EXPECT_EQ(spec->config.max_spout_pending, 500);
  EXPECT_EQ(spec->config.wait_yield_micros, 7);
  EXPECT_EQ(spec->config.receive_buffer_size, 65536);
  EXPECT_TRUE(spec->config.chaining);
  ASSERT_EQ(spec->config.extra.size(), 1u);
  EXPECT_EQ(spec->config.extra[0].first, "my.threshold");
  EXPECT_EQ(spec->config.extra[0].second, Value(0.5));
  ASSERT_EQ(spec->components.size(), 3u);
  const ComponentSpec& gen = *spec->Find("gen");
  EXPECT_EQ(gen.kind, ComponentKind::kSpout);
  EXPECT_EQ(gen.parallelism, 2);
  EXPECT_EQ(gen.class_name, "GeneratorSpout");
  ASSERT_NE(gen.FindStream("events"), nullptr);
  EXPECT_EQ(*gen.FindStream("events")->fields, (Fields{"id", "key", "ts", "payload"}));
  const ComponentSpec& pass = *spec->Find("pass");
  ASSERT_EQ(pass.inputs.size(), 1u);
  EXPECT_EQ(pass.inputs[0].source, (GlobalStreamId{"gen", "events"}));
  EXPECT_EQ(pass.inputs[0].grouping.type, GroupingType::kFields);
  EXPECT_EQ(pass.inputs[0].grouping.fields, (std::vector<std::string>{"key", "ts"}));
  EXPECT_EQ(*pass.FindStream("default")->fields, (Fields{"id", "key", "ts", "payload"}));
  EXPECT_EQ(spec->Find("sink")->inputs[0].grouping.type, GroupingType::kPartialKey);
}

TEST_F(YamlLoaderTest, IncludesMergeAndOverride) {
  dir_.Write("base.yaml", R"(
name: base
config: {topology.workers: 2, topology.debug: true}
spouts:
  - {id: gen, className: GeneratorSpout, parallelism: 5}
bolts:
  - {id: sink, className: NullBolt}
streams:
  - {from: gen, to: sink, grouping: {type: SHUFFLE}}
)");
  const std::string keep = dir_.Write("keep.yaml", R"(
name: mine
includes: [{file: base.yaml}]
config: {topology.workers: 4}
spouts:
  - {id: gen, className: GeneratorSpout, parallelism: 1}
)");
  auto spec = LoadTopology(keep, options_);
  EXPECT_EQ(spec->name, "mine");
  EXPECT_EQ(spec->config.workers, 4);  // the including file wins
  EXPECT_TRUE(spec->config.debug);     // merged from the include
  EXPECT_EQ(spec->Find("gen")->parallelism, 1);
  ASSERT_NE(spec->Find("sink"), nullptr);  // components and streams come along
  EXPECT_EQ(spec->Find("sink")->inputs.size(), 1u);

  const std::string over = dir_.Write("over.yaml", R"(
includes: [{resource: false, file: base.yaml, override: true}]
config: {topology.workers: 4}
spouts:
  - {id: gen, className: GeneratorSpout, parallelism: 1}
)");
  spec = LoadTopology(over, options_);
  EXPECT_EQ(spec->config.workers, 2);
  EXPECT_EQ(spec->Find("gen")->parallelism, 5);
}

// The size limit is LoadOptions::max_file_bytes (--max-file-bytes), for the file and its includes.
TEST_F(YamlLoaderTest, FilesLargerThanMaxFileBytesAreRefused) {
  const std::string topology =
      "name: t\nspouts: [{id: g, className: GeneratorSpout}]\n"
      "bolts: [{id: n, className: NullBolt}]\n"
      "streams: [{from: g, to: n, grouping: {type: SHUFFLE}}]\n";
  dir_.Write("t.yaml", topology);
  dir_.Write("main.yaml", "includes: [t.yaml]\n");
  EXPECT_EQ(Error(dir_.File("main.yaml")), "(no error)");
  options_.max_file_bytes = topology.size() - 1;
  EXPECT_EQ(Error(dir_.File("t.yaml")),
            fmt::format("{}: larger than {} bytes (--max-file-bytes): not a topology file",
                        dir_.File("t.yaml"), topology.size() - 1));
  EXPECT_NE(Error(dir_.File("main.yaml")).find("larger than"), std::string::npos);
}

TEST_F(YamlLoaderTest, IncludeCyclesAreErrors) {
  dir_.Write("a.yaml", "includes: [b.yaml]\nspouts: [{id: g, className: GeneratorSpout}]\n");
  dir_.Write("b.yaml", "includes: [a.yaml]\n");
  const std::string message = Error(dir_.File("a.yaml"));
  EXPECT_NE(message.find("includes form a cycle"), std::string::npos) << message;
}

TEST_F(YamlLoaderTest, PropertiesFromFilterFilesAndSet) {
  const std::string props = dir_.Write("dev.properties", "# counts\nhow.many = 7\nsink=NullBolt\n");
  const std::string file = dir_.Write("t.yaml", R"(
name: "wc-${how.many}"
spouts:
  - {id: gen, className: GeneratorSpout, parallelism: "${p}", config: {count: "${how.many}"}}
bolts:
  - {id: sink, className: "${sink}"}
streams:
  - {from: gen, to: sink, grouping: {type: SHUFFLE}}
)");
  options_.filter_file = props;
  options_.set = {{"p", "3"}, {"topology.workers", "2"}};
  const auto spec = LoadTopology(file, options_);
  EXPECT_EQ(spec->name, "wc-7");
  EXPECT_EQ(spec->Find("gen")->parallelism, 3);
  EXPECT_EQ(spec->Find("sink")->class_name, "NullBolt");
  EXPECT_EQ(spec->config.workers, 2);  // --set overrides config too
}

TEST_F(YamlLoaderTest, YamlFilterGivesListsAndIndexedElements) {
  const std::string props = dir_.Write("f.yaml", "keys: [key, ts]\nsizes: [1, 2, 3]\n");
  const std::string file = dir_.Write("t.yaml", R"(
spouts:
  - {id: gen, className: GeneratorSpout, parallelism: "${sizes[2]}"}
bolts:
  - {id: sink, className: NullBolt}
streams:
  - {from: gen, to: sink, grouping: {type: FIELDS, args: "${keys}"}}
)");
  options_.filter_file = props;
  const auto spec = LoadTopology(file, options_);
  EXPECT_EQ(spec->Find("gen")->parallelism, 3);
  EXPECT_EQ(spec->Find("sink")->inputs[0].grouping.fields, (std::vector<std::string>{"key", "ts"}));
}

TEST_F(YamlLoaderTest, EnvironmentNeedsEnvFilter) {
  ::setenv("TEMPEST_TEST_COUNT", "12", 1);
  const std::string file = dir_.Write("t.yaml", R"(
spouts:
  - {id: gen, className: GeneratorSpout, config: {count: "${ENV-TEMPEST_TEST_COUNT}"}}
)");
  EXPECT_EQ(Error(file), file +
                             ":3:58: spouts[0].config.count: \"${ENV-TEMPEST_TEST_COUNT}\" "
                             "reads the environment, which needs --env-filter");
  options_.env_filter = true;
  EXPECT_NO_THROW(LoadTopology(file, options_));
}

// Each file in tests/data/bad starts with "# expect: <error>", where {file} stands for the
// file's path and {dir} for its folder.
TEST_F(YamlLoaderTest, EveryBadTopologyHasItsExactError) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(DataDir() / "bad")) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string file = entry.path().string();
    std::ifstream in(file);
    std::string first;
    std::getline(in, first);
    ASSERT_TRUE(first.starts_with("# expect: ")) << file << " has no '# expect: ' line";
    std::string expected = first.substr(10);
    for (auto [key, value] : {std::pair<std::string, std::string>{"{file}", file},
                              {"{dir}", entry.path().parent_path().string()}}) {
      for (auto pos = expected.find(key); pos != std::string::npos; pos = expected.find(key)) {
        expected.replace(pos, key.size(), value);
      }
    }
    EXPECT_EQ(Error(file), expected);
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

}  // namespace
}  // namespace tempest::topology

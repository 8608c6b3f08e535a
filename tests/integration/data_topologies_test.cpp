// Data-driven topology tests: each folder of tests/data/cases holds topology.yaml, its input
// files and, for every output file NAME the topology writes into ${out_dir}, NAME.expected.
// The run's output must equal the expected lines as a multiset (task interleaving is free).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "../support/data_dir.h"
#include "bolts/builtin_bolts.h"
#include "runtime/local_cluster.h"
#include "spouts/builtin_spouts.h"
#include "topology/yaml_loader.h"

namespace tempest {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

class DataTopologyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DataTopologyTest, OutputMatchesExpected) {
  const std::filesystem::path dir = testing::DataDir() / "cases" / GetParam();
  testing::TempDir out;
  topology::ComponentRegistry registry;
  spouts::RegisterBuiltinSpouts(registry);
  bolts::RegisterBuiltinBolts(registry);
  topology::LoadOptions options;
  options.registry = &registry;
  options.set = {{"out_dir", out.path()}};
  const auto spec = topology::LoadTopology((dir / "topology.yaml").string(), options);
  const runtime::RunSummary summary = runtime::LocalCluster(spec).Run();
  ASSERT_TRUE(summary.completed) << summary.error;
  int compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".expected") continue;
    const std::string name = entry.path().stem().string();
    EXPECT_EQ(Lines(testing::ReadFile(out.File(name))),
              Lines(testing::ReadFile(entry.path().string())))
        << GetParam() << ": " << name;
    ++compared;
  }
  EXPECT_GT(compared, 0) << "no .expected file in " << dir;
}

std::vector<std::string> Cases() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(testing::DataDir() / "cases")) {
    if (e.is_directory()) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Cases, DataTopologyTest, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tempest

// Data-driven topology tests: each folder of tests/data/cases holds topology.yaml, its input
// files and, for every output file NAME the topology writes into ${out_dir}, NAME.expected.
// The run's output must equal the expected lines as a multiset (task interleaving is free), in
// one process and with 1, 2 and 3 worker processes.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "../support/data_dir.h"
#include "../support/tempest_workers.h"
#include "runtime/local_cluster.h"

namespace tempest {
namespace {

// (case, workers): workers 0 runs in this process (LocalCluster).
using Param = std::tuple<std::string, int>;

class DataTopologyTest : public ::testing::TestWithParam<Param> {};

TEST_P(DataTopologyTest, OutputMatchesExpected) {
  const auto& [name, workers] = GetParam();
  const std::filesystem::path dir = testing::DataDir() / "cases" / name;
  testing::TempDir out;
  const testing::YamlRun yaml{(dir / "topology.yaml").string(), {{"out_dir", out.path()}}};
  const auto spec = yaml.Load();
  const runtime::RunSummary summary =
      workers == 0 ? runtime::LocalCluster(spec).Run()
                   : runtime::ProcessCluster(spec, yaml.Workers(workers)).Run();
  ASSERT_TRUE(summary.completed) << summary.error;
  EXPECT_EQ(summary.dropped_frames, 0u);
  int compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".expected") continue;
    const std::string file = entry.path().stem().string();
    EXPECT_EQ(testing::SortedLines(testing::ReadFile(out.File(file))),
              testing::SortedLines(testing::ReadFile(entry.path().string())))
        << name << " with " << workers << " workers: " << file;
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

INSTANTIATE_TEST_SUITE_P(Cases, DataTopologyTest,
                         ::testing::Combine(::testing::ValuesIn(Cases()),
                                            ::testing::Values(0, 1, 2, 3)),
                         [](const auto& info) {
                           const int w = std::get<1>(info.param);
                           return std::get<0>(info.param) +
                                  (w == 0 ? std::string("_in_process")
                                          : "_" + std::to_string(w) + "_workers");
                         });

}  // namespace
}  // namespace tempest

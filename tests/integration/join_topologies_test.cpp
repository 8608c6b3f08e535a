// The JoinBolt example as a user runs it: examples/joins/joins.yaml over its bundled files, in one
// process and on 3 worker processes, must print exactly examples/joins/expected/ (the README
// shows it). The parallelism-3 join over files is the data case tests/data/cases/join_users_orders.
#include <gtest/gtest.h>

#include "../support/data_dir.h"
#include "../support/temp_dir.h"
#include "../support/tempest_workers.h"
#include "runtime/local_cluster.h"

namespace tempest {
namespace {

class JoinExampleTest : public ::testing::TestWithParam<int> {};

TEST_P(JoinExampleTest, PrintsTheDocumentedRows) {
  const std::filesystem::path dir = testing::DataDir() / ".." / ".." / "examples" / "joins";
  testing::TempDir out;
  const testing::YamlRun yaml{(dir / "joins.yaml").string(), {{"out_dir", out.path()}}};
  const int workers = GetParam();
  const runtime::RunSummary summary =
      workers == 0 ? runtime::LocalCluster(yaml.Load()).Run()
                   : runtime::ProcessCluster(yaml.Load(), yaml.Workers(workers)).Run();
  ASSERT_TRUE(summary.completed) << summary.error;
  for (const char* file : {"paid.jsonl", "reconcile.jsonl"}) {
    EXPECT_EQ(testing::ReadFile(out.File(file)),
              testing::ReadFile((dir / "expected" / file).string()))
        << file;
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, JoinExampleTest, ::testing::Values(0, 3), [](const auto& info) {
  return info.param == 0 ? std::string("in_process") : std::to_string(info.param) + "_workers";
});

}  // namespace
}  // namespace tempest

// The join examples as a user runs them, in one process and on 3 worker processes:
// examples/joins/joins.yaml must print exactly examples/joins/expected/, and the interval join's
// show/click example every show exactly once, as examples/interval_join/expected/ (both shown in
// docs/joins.md). The parallelism-3 joins over files are the data cases
// tests/data/cases/join_users_orders and interval_join_parallel.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>
#include <sstream>

#include "../support/data_dir.h"
#include "../support/temp_dir.h"
#include "../support/tempest_workers.h"
#include "../support/test_components.h"
#include "bolts/join/interval_join_bolt.h"
#include "bolts/join/join_bolt.h"
#include "runtime/local_cluster.h"
#include "spouts/generator_spout.h"
#include "topology/topology_builder.h"

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

class IntervalJoinExampleTest : public ::testing::TestWithParam<int> {};

TEST_P(IntervalJoinExampleTest, EveryShowComesOutExactlyOnceMatchedOrPadded) {
  const std::filesystem::path dir = testing::DataDir() / ".." / ".." / "examples" / "interval_join";
  testing::TempDir out;
  const testing::YamlRun yaml{(dir / "shows_clicks.yaml").string(), {{"out_dir", out.path()}}};
  const int workers = GetParam();
  const runtime::RunSummary summary =
      workers == 0 ? runtime::LocalCluster(yaml.Load()).Run()
                   : runtime::ProcessCluster(yaml.Load(), yaml.Workers(workers)).Run();
  ASSERT_TRUE(summary.completed) << summary.error;
  const std::vector<std::string> rows =
      testing::SortedLines(testing::ReadFile(out.File("clicked.jsonl")));
  // Pairs are emitted as the two logs interleave, padded rows when shows leave: the order varies,
  // the rows do not.
  EXPECT_EQ(rows,
            testing::SortedLines(testing::ReadFile((dir / "expected" / "clicked.jsonl").string())));
  std::set<std::string> shows;
  for (const std::string& r : rows) {
    EXPECT_TRUE(shows.insert(r.substr(0, r.find(','))).second) << "show twice: " << r;
  }
  EXPECT_EQ(shows.size(), 8u);
  EXPECT_EQ(summary.Find("clicked")->failed, 0u);
}

INSTANTIATE_TEST_SUITE_P(Workers, IntervalJoinExampleTest, ::testing::Values(0, 3),
                         [](const auto& info) {
                           return info.param == 0 ? std::string("in_process")
                                                  : std::to_string(info.param) + "_workers";
                         });

// Generators "left" and "right" of `count` rows [id, key, ts, payload] over `keys` keys.
void AddGenerators(topology::TopologyBuilder& b, uint64_t count, uint64_t keys) {
  spouts::GeneratorSpoutConfig gen;
  gen.count = count;
  gen.keys = keys;
  b.SetSpout("left", [gen] { return std::make_unique<spouts::GeneratorSpout>(gen); });
  b.SetSpout("right", [gen] { return std::make_unique<spouts::GeneratorSpout>(gen); });
}

// A "sink" recording what `from` emits.
std::shared_ptr<testing::Recorder> AddRecorder(topology::TopologyBuilder& b,
                                               const std::string& from) {
  auto recorder = std::make_shared<testing::Recorder>();
  b.SetBolt("sink", [recorder] {
     return std::make_unique<testing::RecordingBolt>(recorder);
   }).ShuffleGrouping(from);
  return recorder;
}

// The C++ builder in a real run with acking on: two generators (key = id % 100, ts = id) joined
// within ±2 ms on 2 tasks, fields-grouped on the key. Ids 100 apart share a key but are 100 ms
// apart, so exactly the pairs (i, i) match; every input is acked once it leaves the state.
TEST(IntervalJoinBuilderTest, JoinsGeneratorsExactlyOnTwoTasksWithAcking) {
  constexpr uint64_t kCount = 3000;
  topology::TopologyBuilder b("interval-join-builder");
  AddGenerators(b, kCount, 100);
  bolts::IntervalJoinBoltBuilder join(bolts::JoinSelector::kSource, {"left", {"key"}, "ts"},
                                      {"right", {"key"}, "ts"});
  join.Between(-2, 2).Select("left:id AS l, right:id AS r, _ts").WithWatermarkInterval(10);
  b.SetBolt("join", join.Build(), 2)
      .FieldsGrouping("left", {"key"})
      .FieldsGrouping("right", {"key"});
  const auto recorder = AddRecorder(b, "join");
  const runtime::RunSummary summary = runtime::LocalCluster(b.Build()).Run();
  ASSERT_TRUE(summary.completed) << summary.error;
  std::vector<int64_t> ids;
  for (const auto& r : recorder->records()) {
    ASSERT_EQ(r.values.size(), 3u);
    EXPECT_EQ(r.values[0].AsInt(), r.values[1].AsInt());
    EXPECT_EQ(r.values[2].AsInt(), r.values[0].AsInt());  // _ts: both at ts = id
    ids.push_back(r.values[0].AsInt());
  }
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), kCount);
  for (uint64_t i = 0; i < kCount; ++i) EXPECT_EQ(ids[i], static_cast<int64_t>(i));
  EXPECT_EQ(summary.Find("join")->acked, 2 * kCount);
  EXPECT_EQ(summary.Find("join")->dropped, 0u);
  EXPECT_EQ(summary.Find("left")->acked, kCount);
  EXPECT_EQ(summary.Find("right")->acked, kCount);
}

// JoinBolt holds its windows packed and anchors each output through the rows' ack metadata: in
// a real run with acking on, every spout tuple's tree completes (an ack value lost on the way
// back into a held row would leave trees pending until they time out and fail). Two generators
// (key = id % 100) on 2 tasks, fields-grouped on the key, tumbling windows of 500.
TEST(JoinBoltBuilderTest, EveryTreeCompletesThroughPackedWindowsWithAcking) {
  constexpr uint64_t kCount = 3000;
  topology::TopologyBuilder b("join-builder");
  AddGenerators(b, kCount, 100);
  b.SetBolt("join",
            bolts::JoinBoltBuilder(bolts::JoinSelector::kSource, "left", "key")
                .Join("right", "key", "left")
                .Select("left:id AS l, right:id AS r")
                .WithTumblingWindow(bolts::WindowSpan::Count(500))
                .Build(),
            2)
      .FieldsGrouping("left", {"key"})
      .FieldsGrouping("right", {"key"});
  const auto recorder = AddRecorder(b, "join");
  const runtime::RunSummary summary = runtime::LocalCluster(b.Build()).Run();
  ASSERT_TRUE(summary.completed) << summary.error;
  ASSERT_FALSE(recorder->records().empty());
  for (const auto& r : recorder->records()) {
    ASSERT_EQ(r.values.size(), 2u);
    EXPECT_EQ(r.values[0].AsInt() % 100, r.values[1].AsInt() % 100);
  }
  EXPECT_EQ(summary.Find("join")->emitted, recorder->records().size());
  EXPECT_EQ(summary.Find("join")->acked, 2 * kCount);
  EXPECT_EQ(summary.Find("join")->failed, 0u);
  EXPECT_EQ(summary.Find("sink")->acked, recorder->records().size());
  for (const char* spout : {"left", "right"}) {
    EXPECT_EQ(summary.Find(spout)->acked, kCount) << spout;
    EXPECT_EQ(summary.Find(spout)->failed, 0u) << spout;
  }
}

// With acking off a JoinBolt's matches are built straight into the outgoing batch as cells
// (RowFiller::FillCells); with acking on each goes out as Values, anchored. Both must give the
// same rows, field for field: ints (to both ends of their range), doubles, bools, nulls, short
// and long strings, and the nulls of a padded left row.
TEST(JoinBoltBuilderTest, MatchesBuiltAsCellsEqualMatchesBuiltAsValues) {
  const std::string kLong = "a note longer than fourteen bytes";
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const auto run = [&](bool acking) {
    topology::TopologyBuilder b("join-cells");
    if (!acking) b.Config().acker_executors = 0;
    b.SetSpout("users", [] {
      return std::make_unique<testing::ListSpout>(
          topology::Fields{"userId", "name", "score", "vip", "rank"},
          std::vector<topology::Values>{{1, "ann", 1.5, true, kMin},
                                        {2, "bob", 2.5, false, -7},
                                        {3, "cy", topology::Value(), true, kMax}});
    });
    b.SetSpout("orders", [kLong] {
      return std::make_unique<testing::ListSpout>(
          topology::Fields{"orderId", "userId", "note", "qty"},
          std::vector<topology::Values>{{10, 1, kLong, kMax},
                                        {11, 1, "short", -1},
                                        {12, 3, "x", kMin},
                                        {13, 9, "orphan", 0}});
    });
    b.SetBolt("join", bolts::JoinBoltBuilder(bolts::JoinSelector::kSource, "users", "userId")
                          .LeftJoin("orders", "userId", "users")
                          .Select("users:userId AS u, name, score, rank, vip, orderId, note, qty")
                          .WithTumblingWindow(bolts::WindowSpan::Count(100))
                          .Build())
        .GlobalGrouping("users")
        .GlobalGrouping("orders");
    const auto recorder = AddRecorder(b, "join");
    const runtime::RunSummary summary = runtime::LocalCluster(b.Build()).Run();
    EXPECT_TRUE(summary.completed) << summary.error;
    std::vector<topology::Values> rows;
    for (const auto& r : recorder->records()) rows.push_back(r.values);
    return rows;
  };
  const topology::Value null;
  const std::vector<topology::Values> expected = {{1, "ann", 1.5, kMin, true, 10, kLong, kMax},
                                                  {1, "ann", 1.5, kMin, true, 11, "short", -1},
                                                  {2, "bob", 2.5, -7, false, null, null, null},
                                                  {3, "cy", null, kMax, true, 12, "x", kMin}};
  EXPECT_EQ(run(false), expected);
  EXPECT_EQ(run(true), expected);
}

// The same for the IntervalJoinBolt: an output of untracked rows is built as cells, one of
// tracked rows as Values. A full join within ±5 ms gives a match, padded rows of both sides and
// `_ts`; the two spouts interleave freely, so the rows are compared as sorted lists. Every input
// is acked, tracked or not.
TEST(IntervalJoinBuilderTest, OutputsBuiltAsCellsEqualOutputsBuiltAsValues) {
  const std::string kTitle = "a show title longer than fourteen bytes";
  const auto run = [&](bool acking) {
    topology::TopologyBuilder b("interval-join-cells");
    if (!acking) b.Config().acker_executors = 0;
    b.SetSpout("shows", [kTitle] {
      return std::make_unique<testing::ListSpout>(
          topology::Fields{"key", "ts", "title", "score"},
          std::vector<topology::Values>{
              {1, 100, kTitle, 1.5}, {2, 200, "s2", 2.5}, {3, 300, "s3", topology::Value()}});
    });
    b.SetSpout("clicks", [] {
      return std::make_unique<testing::ListSpout>(
          topology::Fields{"key", "ts", "who"},
          std::vector<topology::Values>{{1, 103, "ann"}, {1, 110, "bo"}, {4, 400, "dan"}});
    });
    bolts::IntervalJoinBoltBuilder join(bolts::JoinSelector::kSource, {"shows", {"key"}, "ts"},
                                        {"clicks", {"key"}, "ts"});
    join.Between(-5, 5)
        .Type(bolts::JoinType::kFull)
        .Select("shows:key AS sk, title, score, clicks:key AS ck, who, _ts")
        .WithWatermarkInterval(0);  // rows leave while batches come, not only at the end
    b.SetBolt("join", join.Build()).GlobalGrouping("shows").GlobalGrouping("clicks");
    const auto recorder = AddRecorder(b, "join");
    const runtime::RunSummary summary = runtime::LocalCluster(b.Build()).Run();
    EXPECT_TRUE(summary.completed) << summary.error;
    EXPECT_EQ(summary.Find("join")->acked, 6u) << "acking " << acking;  // every input, once
    std::vector<std::string> rows;
    for (const auto& r : recorder->records()) rows.push_back(topology::ToString(r.values));
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  const topology::Value null;
  std::vector<std::string> expected;
  for (const topology::Values& v :
       std::vector<topology::Values>{{1, kTitle, 1.5, 1, "ann", 103},
                                     {null, null, null, 1, "bo", 110},
                                     {2, "s2", 2.5, null, null, 200},
                                     {3, "s3", null, null, null, 300},
                                     {null, null, null, 4, "dan", 400}}) {
    expected.push_back(topology::ToString(v));
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(run(false), expected);
  EXPECT_EQ(run(true), expected);
}

}  // namespace
}  // namespace tempest

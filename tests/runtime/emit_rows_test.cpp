// OutputCollector::EmitRows: the rows of one call reach every grouping as that many Emit calls
// would send them, in order; a row that fails (wrong size, or the filler throws) is not sent,
// fails the input as a throwing Emit does, and leaves the rows before it sent.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../support/generator.h"
#include "../support/log_capture.h"
#include "../support/test_components.h"
#include "bolts/windowing/windowed_bolt.h"
#include "runtime/local_cluster.h"
#include "topology/row_batch.h"
#include "topology/topology_builder.h"

namespace tempest::runtime {
namespace {

using testing::LogCapture;
using topology::Fields;
using topology::OutputCollector;
using topology::TopologyContext;
using topology::Tuple;
using topology::Values;

constexpr std::size_t kNoBadRow = ~std::size_t{0};

// Row i of input n is [n, i]. Row `bad` is one field short, or, with `throws`, throws after its
// first value. With `cells` it also builds rows as cells (where a row goes to one local task);
// after Build(count) its rows are already built, a batch a local destination copies in a block.
class PairRows final : public topology::RowFiller {
 public:
  PairRows(int64_t n, std::size_t bad, bool throws, bool cells = false)
      : n_(n), bad_(bad), throws_(throws), cells_(cells) {}
  void Fill(std::size_t row, Values& values) override {
    values.emplace_back(n_);
    if (row == bad_) {
      if (throws_) throw std::runtime_error("filler gave up on row " + std::to_string(row));
      return;
    }
    values.emplace_back(static_cast<int64_t>(row));
  }
  bool FillsCells() const noexcept override { return cells_; }
  std::size_t FillCells(std::size_t row, topology::RowBatch& out) override {
    out.AddInt(n_);
    if (row == bad_) {
      if (throws_) throw std::runtime_error("filler gave up on row " + std::to_string(row));
      return 1;
    }
    out.AddInt(static_cast<int64_t>(row));
    return 2;
  }
  PairRows& Build(std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) built_.EndRow(nullptr, FillCells(i, built_), 0);
    built_ready_ = true;
    return *this;
  }
  const topology::RowBatch* BuiltRows() const noexcept override {
    return built_ready_ ? &built_ : nullptr;
  }

 private:
  int64_t n_;
  std::size_t bad_;
  bool throws_;
  bool cells_;
  topology::RowBatch built_;
  bool built_ready_ = false;
};

// How a test's rows are made: as values, as cells in the destination's batch, or built
// beforehand and copied in a block.
enum class Made { kValues, kCells, kBuilt };
std::string NameOf(Made m) {
  return m == Made::kValues ? "Values" : m == Made::kCells ? "Cells" : "Built";
}

// Rows emitted for input n: n % 4 of them.
std::size_t RowsOf(int64_t n) { return static_cast<std::size_t>(n % 4); }

std::multiset<std::pair<int64_t, int64_t>> Pairs(const std::vector<testing::Recorder::Record>& rs,
                                                 int task = -1) {
  std::multiset<std::pair<int64_t, int64_t>> out;
  for (const auto& r : rs) {
    EXPECT_EQ(r.values.size(), 2u);
    if (r.values.size() == 2 && (task < 0 || r.task == task)) {
      out.emplace(r.values[0].AsInt(), r.values[1].AsInt());
    }
  }
  return out;
}

TEST(EmitRowsTest, EveryGroupingGetsTheRowsOfThatManyEmitsInOrder) {
  constexpr int64_t kInputs = 60;
  std::multiset<std::pair<int64_t, int64_t>> expected;
  for (int64_t n = 0; n < kInputs; ++n) {
    for (std::size_t i = 0; i < RowsOf(n); ++i) expected.emplace(n, static_cast<int64_t>(i));
  }
  auto shuffled = std::make_shared<testing::Recorder>();
  auto everywhere = std::make_shared<testing::Recorder>();
  auto keyed = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(kInputs));
  // Shuffle routes each row before it is built (into the outgoing tuple); all-grouping routes
  // first too but sends copies; fields grouping reads the row, so it is built, then routed.
  b.SetBolt("rows", [] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, Fields>{
             {"shuffled", {"n", "i"}}, {"everywhere", {"n", "i"}}, {"keyed", {"n", "i"}}},
         [](const Tuple& t, OutputCollector& out, const TopologyContext&) {
           const int64_t n = t.GetInt(0);
           for (const char* stream : {"shuffled", "everywhere", "keyed"}) {
             PairRows rows(n, kNoBadRow, false);
             topology::EmitRows(out, topology::RowEmitterOf(out), stream, RowsOf(n), rows);
           }
           out.Ack(t);
         });
   }).ShuffleGrouping("gen");
  b.SetBolt(
       "s", [shuffled] { return std::make_unique<testing::RecordingBolt>(shuffled); }, 2)
      .ShuffleGrouping("rows", "shuffled");
  b.SetBolt(
       "a", [everywhere] { return std::make_unique<testing::RecordingBolt>(everywhere); }, 2)
      .AllGrouping("rows", "everywhere");
  b.SetBolt(
       "k", [keyed] { return std::make_unique<testing::RecordingBolt>(keyed); }, 2)
      .FieldsGrouping("rows", "keyed", {"i"});
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(s.Find("rows")->errors, 0u);
  EXPECT_EQ(s.Find("rows")->emitted, 3 * expected.size());
  EXPECT_EQ(s.Find("gen")->acked, static_cast<uint64_t>(kInputs));

  EXPECT_EQ(Pairs(shuffled->records()), expected);
  // Round-robin over both tasks, each seeing one input's rows in row order.
  std::set<int> shuffle_tasks;
  std::map<int, std::pair<int64_t, int64_t>> last;  // by task
  for (const auto& r : shuffled->records()) {
    shuffle_tasks.insert(r.task);
    const std::pair<int64_t, int64_t> row{r.values[0].AsInt(), r.values[1].AsInt()};
    if (last.contains(r.task)) {
      EXPECT_LT(last[r.task], row) << "task " << r.task;
    }
    last[r.task] = row;
    EXPECT_EQ(r.stream, "shuffled");
  }
  EXPECT_EQ(shuffle_tasks.size(), 2u);

  std::set<int> all_tasks;
  for (const auto& r : everywhere->records()) all_tasks.insert(r.task);
  ASSERT_EQ(all_tasks.size(), 2u);
  for (const int task : all_tasks) EXPECT_EQ(Pairs(everywhere->records(), task), expected);

  EXPECT_EQ(Pairs(keyed->records()), expected);
  std::map<int64_t, int> task_of_i;
  for (const auto& r : keyed->records()) {
    const auto [it, added] = task_of_i.emplace(r.values[1].AsInt(), r.task);
    EXPECT_EQ(it->second, r.task) << "i = " << r.values[1].AsInt() << " on two tasks";
  }
}

// Rows built as values, as cells in the destination's batch where they go to one local task, or
// beforehand (then a filler cannot throw midway: its failed rows are all one field short).
class FailedRow : public ::testing::TestWithParam<Made> {};
INSTANTIATE_TEST_SUITE_P(EmitRowsTest, FailedRow,
                         ::testing::Values(Made::kValues, Made::kCells, Made::kBuilt),
                         [](const auto& info) { return NameOf(info.param); });

TEST_P(FailedRow, AFailedRowIsNotSentAndFailsTheInputAsEmitWould) {
  constexpr int64_t kInputs = 30;
  const Made made = GetParam();
  auto local = std::make_shared<testing::Recorder>();
  auto keyed = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.Config().acker_executors = 0;
  b.SetSpout("gen", testing::Generator(kInputs));
  // Input n emits 3 rows; row 1 is one field short (n % 3 == 1) or its filler throws (n % 3 == 2).
  const auto clumsy = [made] {
    return std::make_unique<testing::LambdaBolt>(
        std::map<std::string, Fields>{{"default", {"n", "i"}}},
        [made](const Tuple& t, OutputCollector& out, const TopologyContext&) {
          const int64_t n = t.GetInt(0);
          PairRows rows(n, n % 3 == 0 ? kNoBadRow : 1, n % 3 == 2 && made != Made::kBuilt,
                        made != Made::kValues);
          if (made == Made::kBuilt) rows.Build(3);
          topology::EmitRows(out, topology::RowEmitterOf(out), "default", 3, rows);
          out.Ack(t);
        });
  };
  b.SetBolt("routed_first", clumsy).ShuffleGrouping("gen");
  b.SetBolt("built_first", clumsy).ShuffleGrouping("gen");
  b.SetBolt("local", [local] {
     return std::make_unique<testing::RecordingBolt>(local);
   }).ShuffleGrouping("routed_first");
  b.SetBolt("keyed", [keyed] {
     return std::make_unique<testing::RecordingBolt>(keyed);
   }).FieldsGrouping("built_first", {"i"});
  LogCapture logged;
  const RunSummary s = LocalCluster(b.Build()).Run();
  const std::string log = logged.Text();
  ASSERT_TRUE(s.completed) << s.error;

  std::multiset<std::pair<int64_t, int64_t>> expected;  // row 0 always, rows 1 and 2 if n % 3 == 0
  for (int64_t n = 0; n < kInputs; ++n) {
    expected.emplace(n, 0);
    if (n % 3 == 0) {
      expected.emplace(n, 1);
      expected.emplace(n, 2);
    }
  }
  for (const char* bolt : {"routed_first", "built_first"}) {
    EXPECT_EQ(s.Find(bolt)->errors, 20u) << bolt;
    EXPECT_EQ(s.Find(bolt)->failed, 20u) << bolt;
    EXPECT_EQ(s.Find(bolt)->acked, 10u) << bolt;
    EXPECT_EQ(s.Find(bolt)->emitted, expected.size()) << bolt;
  }
  EXPECT_EQ(Pairs(local->records()), expected);  // and no one-field row
  EXPECT_EQ(Pairs(keyed->records()), expected);
  EXPECT_NE(log.find("Tuple created with wrong number of fields. Expected 2 fields but got 1 "
                     "fields (stream 'default' of component 'routed_first' declares [n, i])"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("Tuple created with wrong number of fields. Expected 2 fields but got 1 "
                     "fields (stream 'default' of component 'built_first' declares [n, i])"),
            std::string::npos)
      << log;
  if (made != Made::kBuilt) {
    EXPECT_NE(log.find("filler gave up on row 1"), std::string::npos) << log;
  }
}

// One call's rows to one local task fill its batches a batch at a time: more rows than a
// batch holds arrive whole and in order, as values, cells and built rows alike.
TEST(EmitRowsTest, OneCallsRowsFillSeveralBatchesInOrder) {
  constexpr int64_t kInputs = 12;
  constexpr std::size_t kRows = 50;  // per input, against batches of 8
  for (const Made made : {Made::kValues, Made::kCells, Made::kBuilt}) {
    const std::string cells = NameOf(made);
    auto recorder = std::make_shared<testing::Recorder>();
    topology::TopologyBuilder b;
    b.SetSpout("gen", testing::Generator(kInputs));
    b.SetBolt("rows", [made] {
       return std::make_unique<testing::LambdaBolt>(
           std::map<std::string, Fields>{{"default", {"n", "i"}}},
           [made](const Tuple& t, OutputCollector& out, const TopologyContext&) {
             PairRows rows(t.GetInt(0), kNoBadRow, false, made != Made::kValues);
             if (made == Made::kBuilt) rows.Build(kRows);
             topology::EmitRows(out, topology::RowEmitterOf(out), "default", kRows, rows);
             out.Ack(t);
           });
     }).ShuffleGrouping("gen");
    b.SetBolt("sink", [recorder] {
       return std::make_unique<testing::RecordingBolt>(recorder);
     }).ShuffleGrouping("rows");
    const RunSummary s = LocalCluster(b.Build(), LocalRunOptions{.batch_size = 8}).Run();
    ASSERT_TRUE(s.completed) << s.error;
    EXPECT_EQ(s.Find("rows")->emitted, kInputs * kRows) << cells;
    EXPECT_EQ(s.Find("gen")->acked, static_cast<uint64_t>(kInputs)) << cells;
    std::vector<std::pair<int64_t, int64_t>> got;
    for (const auto& r : recorder->records()) {
      got.emplace_back(r.values[0].AsInt(), r.values[1].AsInt());
    }
    std::vector<std::pair<int64_t, int64_t>> expected;
    for (int64_t n = 0; n < kInputs; ++n) {
      for (std::size_t i = 0; i < kRows; ++i) expected.emplace_back(n, static_cast<int64_t>(i));
    }
    EXPECT_EQ(got, expected) << cells;
  }
}

TEST(EmitRowsTest, AnUndeclaredStreamIsAnErrorAndNothingIsFilled) {
  topology::TopologyBuilder b;
  b.Config().acker_executors = 0;
  b.SetSpout("gen", testing::Generator(10));
  b.SetBolt("rows", [] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, Fields>{{"default", {"n", "i"}}},
         [](const Tuple& t, OutputCollector& out, const TopologyContext&) {
           PairRows rows(t.GetInt(0), 0, true);  // would throw its own error if called
           topology::EmitRows(out, topology::RowEmitterOf(out), "nowhere", 2, rows);
           out.Ack(t);
         });
   }).ShuffleGrouping("gen");
  auto recorder = std::make_shared<testing::Recorder>();
  b.SetBolt("sink", [recorder] {
     return std::make_unique<testing::RecordingBolt>(recorder);
   }).ShuffleGrouping("rows");
  LogCapture logged;
  const RunSummary s = LocalCluster(b.Build()).Run();
  const std::string log = logged.Text();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(s.Find("rows")->errors, 10u);
  EXPECT_EQ(s.Find("rows")->emitted, 0u);
  EXPECT_TRUE(recorder->records().empty());
  EXPECT_NE(log.find("component 'rows' emitted on undeclared stream 'nowhere' (declared: "),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("filler gave up"), std::string::npos) << log;
}

// The collectors the runtime and the windowed adapter hand to bolts take rows in one call (the
// joins' fast path): RowEmitterOf finds it through the public OutputCollector.
TEST(EmitRowsTest, TheRuntimeAndWindowedCollectorsAreRowEmitters) {
  auto found = std::make_shared<std::map<std::string, bool>>();
  class Probe final : public bolts::WindowedBolt {
   public:
    explicit Probe(std::shared_ptr<std::map<std::string, bool>> found) : found_(std::move(found)) {}
    void Prepare(const TopologyContext&, OutputCollector& out) override {
      (*found_)["windowed"] = topology::RowEmitterOf(out) != nullptr;
    }
    void Execute(const bolts::TupleWindow&) override {}
    void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

   private:
    std::shared_ptr<std::map<std::string, bool>> found_;
  };
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(3));
  b.SetBolt("plain", [found] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, Fields>{{"default", {"n"}}},
         [found](const Tuple& t, OutputCollector& out, const TopologyContext&) {
           (*found)["plain"] = topology::RowEmitterOf(out) != nullptr;
           out.Ack(t);
         });
   }).ShuffleGrouping("gen");
  b.SetBolt("windowed", [found] {
     return bolts::AdaptWindowedBolt(std::make_unique<Probe>(found),
                                     bolts::WindowConfig::Tumbling(bolts::WindowSpan::Count(2)));
   }).ShuffleGrouping("gen");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(*found, (std::map<std::string, bool>{{"plain", true}, {"windowed", true}}));
}

}  // namespace
}  // namespace tempest::runtime

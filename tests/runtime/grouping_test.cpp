// Each grouping's distribution, on the groupers directly and through a real run.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>

#include "../support/test_components.h"
#include "runtime/local_cluster.h"
#include "runtime/routing/grouper.h"
#include "topology/topology_builder.h"
#include "topology/value_hash.h"

namespace tempest::runtime {
namespace {

using topology::Fields;
using topology::GroupingSpec;
using topology::GroupingType;
using topology::Values;

// A spout "src" (fields key, n) feeding a bolt "dst" with `tasks` tasks: dst gets tasks 1..n
// (sorted ids), src the last one.
struct Fixture {
  explicit Fixture(int tasks) {
    topology::TopologyBuilder b;
    b.SetSpout("src", [] {
      return std::make_unique<testing::ListSpout>(Fields{"key", "n"}, std::vector<Values>{});
    });
    b.SetBolt(
         "dst", [] { return std::make_unique<testing::RecordingBolt>(nullptr); }, tasks)
        .ShuffleGrouping("src");
    spec = b.Build();
    layout = std::make_shared<const topology::TaskLayout>(*spec);
    context.emplace(spec, layout, layout->TasksOf("src")[0]);
  }

  std::unique_ptr<Grouper> Make(GroupingType type, std::vector<std::string> fields = {},
                                std::function<bool(int)> is_local = {},
                                topology::CustomGroupingFactory custom = {}) {
    const GroupingSpec g{type, std::move(fields), std::move(custom)};
    const uint64_t seed = 1;
    GrouperInput in{&*context,
                    {"src", "default"},
                    spec->Find("src")->FindStream("default")->fields.get(),
                    layout->TasksOf("dst"),
                    std::move(is_local),
                    seed};
    return MakeGrouper(g, std::move(in));
  }

  std::shared_ptr<const topology::TopologySpec> spec;
  std::shared_ptr<const topology::TaskLayout> layout;
  std::optional<topology::TopologyContext> context;
};

std::map<int, int> Distribute(Grouper& g, int n, const std::function<Values(int)>& row) {
  std::map<int, int> counts;
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    out.clear();
    g.Choose(row(i), out);
    for (int t : out) ++counts[t];
  }
  return counts;
}

TEST(GroupingTest, ShuffleSpreadsExactlyEvenly) {
  Fixture f(6);
  auto g = f.Make(GroupingType::kShuffle);
  const auto counts = Distribute(*g, 30000, [](int i) { return Values{"k", i}; });
  ASSERT_EQ(counts.size(), 6u);
  for (const auto& [task, n] : counts) {
    EXPECT_GE(task, 1);
    EXPECT_LE(task, 6);
    EXPECT_EQ(n, 5000) << "task " << task;
  }
}

TEST(GroupingTest, ShuffleOrderIsAShuffledRoundRobin) {
  Fixture f(6);
  auto g = f.Make(GroupingType::kShuffle);
  std::vector<int> first, second;
  for (int i = 0; i < 12; ++i) {
    std::vector<int> out;
    g->Choose(Values{"k", i}, out);
    (i < 6 ? first : second).push_back(out[0]);
  }
  EXPECT_EQ(first, second);  // the same order every round
  std::vector<int> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int>{1, 2, 3, 4, 5, 6}));  // each task once per round
}

TEST(GroupingTest, FieldsSendsEqualKeysToOneTask) {
  Fixture f(6);
  auto g = f.Make(GroupingType::kFields, {"key"});
  std::map<std::string, std::set<int>> tasks_of_key;
  std::vector<int> out;
  for (int i = 0; i < 6000; ++i) {
    const std::string key = "user-" + std::to_string(i % 100);
    out.clear();
    g->Choose(Values{key, i}, out);
    ASSERT_EQ(out.size(), 1u);
    tasks_of_key[key].insert(out[0]);
  }
  std::map<int, int> keys_per_task;
  for (const auto& [key, tasks] : tasks_of_key) {
    EXPECT_EQ(tasks.size(), 1u) << key;
    ++keys_per_task[*tasks.begin()];
  }
  EXPECT_EQ(keys_per_task.size(), 6u);  // 100 keys reach every one of 6 tasks
}

TEST(GroupingTest, FieldsTaskIsTheDocumentedHashModTaskCount) {
  // Stable across processes and machines: task = sorted_tasks[StableHash(values) % n], and the
  // hash itself is pinned in value_hash_test.
  Fixture f(6);
  auto g = f.Make(GroupingType::kFields, {"key"});
  for (const char* key : {"apple", "banana", "cherry", ""}) {
    std::vector<int> out;
    g->Choose(Values{key, 0}, out);
    EXPECT_EQ(out[0], 1 + static_cast<int>(topology::StableHash(topology::Value(key)) % 6)) << key;
  }
  // Pinned: "apple" goes to task 6 of 6 in every process, every release.
  std::vector<int> out;
  g->Choose(Values{"apple", 0}, out);
  EXPECT_EQ(out[0], 6);
}

TEST(GroupingTest, FieldsChoiceIsTheSameInAnotherProcess) {
  // A fresh process (new address space, new ASLR) must pick the same task for each key.
  const std::vector<std::string> keys = {"apple", "banana", "user-42", "Zürich", ""};
  std::string command = TEMPEST_FIELDS_TASK_PROBE;
  for (const std::string& k : keys) command += " '" + k + "'";
  FILE* probe = popen(command.c_str(), "r");
  ASSERT_NE(probe, nullptr);
  Fixture f(7);
  auto g = f.Make(GroupingType::kFields, {"key"});
  for (const std::string& k : keys) {
    int remote = -1;
    ASSERT_EQ(std::fscanf(probe, "%d", &remote), 1) << k;
    std::vector<int> out;
    g->Choose(Values{k, 0}, out);
    EXPECT_EQ(out[0], 1 + remote) << k;  // tasks 1..7 are the bolt's, in order
  }
  EXPECT_EQ(pclose(probe), 0);
}

TEST(GroupingTest, FieldsHashesValuesNotFieldNames) {
  // users.city and cities.cityName holding the same string reach the same task.
  Fixture f(5);
  auto by_key = f.Make(GroupingType::kFields, {"key"});
  auto by_n = f.Make(GroupingType::kFields, {"n"});
  for (const char* city : {"Oslo", "Lima", "Pune", "Kyiv"}) {
    std::vector<int> a, b;
    by_key->Choose(Values{city, 0}, a);
    by_n->Choose(Values{0, city}, b);
    EXPECT_EQ(a, b) << city;
  }
}

TEST(GroupingTest, AllReachesEveryTask) {
  Fixture f(4);
  auto g = f.Make(GroupingType::kAll);
  std::vector<int> out;
  g->Choose(Values{"k", 1}, out);
  EXPECT_EQ(out, (std::vector<int>{1, 2, 3, 4}));
}

TEST(GroupingTest, GlobalPicksTheLowestTask) {
  Fixture f(4);
  auto g = f.Make(GroupingType::kGlobal);
  const auto counts = Distribute(*g, 1000, [](int i) { return Values{"k", i}; });
  EXPECT_EQ(counts, (std::map<int, int>{{1, 1000}}));
}

TEST(GroupingTest, NonePicksValidTasksAndSpreads) {
  Fixture f(4);
  auto g = f.Make(GroupingType::kNone);
  const auto counts = Distribute(*g, 4000, [](int i) { return Values{"k", i}; });
  ASSERT_EQ(counts.size(), 4u);
  for (const auto& [task, n] : counts) {
    EXPECT_GE(task, 1);
    EXPECT_LE(task, 4);
    EXPECT_GT(n, 500);  // pseudo-random, seeded: far from degenerate
  }
}

TEST(GroupingTest, LocalOrShufflePrefersLocalTasks) {
  Fixture f(6);
  auto local = f.Make(GroupingType::kLocalOrShuffle, {}, [](int t) { return t % 2 == 0; });
  EXPECT_EQ(Distribute(*local, 3000,
                       [](int i) {
                         return Values{"k", i};
                       }),
            (std::map<int, int>{{2, 1000}, {4, 1000}, {6, 1000}}));
  auto none_local = f.Make(GroupingType::kLocalOrShuffle, {}, [](int) { return false; });
  EXPECT_EQ(Distribute(*none_local, 600, [](int i) { return Values{"k", i}; }).size(), 6u);
}

TEST(GroupingTest, PartialKeyAlternatesBetweenTwoTasksForAHotKey) {
  Fixture f(6);
  auto g = f.Make(GroupingType::kPartialKey, {"key"});
  std::vector<int> chosen;
  for (int i = 0; i < 1000; ++i) {
    std::vector<int> out;
    g->Choose(Values{"hot", i}, out);
    chosen.push_back(out[0]);
  }
  const std::set<int> distinct(chosen.begin(), chosen.end());
  ASSERT_EQ(distinct.size(), 2u);
  for (std::size_t i = 2; i < chosen.size(); ++i) {
    EXPECT_NE(chosen[i], chosen[i - 1]) << "at " << i;  // strictly alternating
  }
  EXPECT_EQ(std::count(chosen.begin(), chosen.end(), *distinct.begin()), 500);
}

TEST(GroupingTest, PartialKeySpreadsManyKeysLikeFields) {
  Fixture f(4);
  auto g = f.Make(GroupingType::kPartialKey, {"key"});
  const auto counts = Distribute(*g, 40000, [](int i) {
    return Values{"k" + std::to_string(i % 997), i};
  });
  ASSERT_EQ(counts.size(), 4u);
  for (const auto& [task, n] : counts) EXPECT_NEAR(n, 10000, 200) << task;
}

class EvenOdd : public topology::CustomStreamGrouping {
 public:
  void Prepare(const topology::TopologyContext&, const topology::GlobalStreamId&,
               const std::vector<int>& targets) override {
    targets_ = targets;
  }
  void ChooseTasks(int, const Values& values, std::vector<int>& out) override {
    out.push_back(values[1].AsInt() % 2 == 0 ? targets_.front() : targets_.back());
    if (values[1].AsInt() == 99) out.push_back(1000);  // not a subscriber
  }

 private:
  std::vector<int> targets_;
};

TEST(GroupingTest, CustomGroupingChoosesAndIsChecked) {
  Fixture f(3);
  auto g = f.Make(GroupingType::kCustom, {}, {}, [] { return std::make_unique<EvenOdd>(); });
  EXPECT_EQ(Distribute(*g, 10,
                       [](int i) {
                         return Values{"k", i};
                       }),
            (std::map<int, int>{{1, 5}, {3, 5}}));
  std::vector<int> out;
  try {
    g->Choose(Values{"k", 99}, out);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "custom grouping chose task 1000, which is not a subscriber (tasks: [1, 2, 3])");
  }
}

// OnlyTask lets the emit path skip the grouper: it must name the task the grouper itself picks
// for every row, and only where that choice is forced.
TEST(GroupingTest, OnlyTaskIsWhatTheGrouperAlwaysPicks) {
  const auto is_local = [](int) { return true; };
  const auto custom = [] { return std::make_unique<EvenOdd>(); };
  const std::vector<std::string> key{"key"};
  for (const int tasks : {1, 3}) {
    Fixture f(tasks);
    const std::vector<int> targets = f.layout->TasksOf("dst");
    for (const GroupingType type :
         {GroupingType::kShuffle, GroupingType::kFields, GroupingType::kAll, GroupingType::kGlobal,
          GroupingType::kNone, GroupingType::kLocalOrShuffle, GroupingType::kPartialKey}) {
      const bool keyed = type == GroupingType::kFields || type == GroupingType::kPartialKey;
      const GroupingSpec spec{type, keyed ? key : std::vector<std::string>{}, {}};
      const int only = OnlyTask(spec, targets);
      SCOPED_TRACE(::testing::Message() << tasks << " tasks, grouping " << static_cast<int>(type));
      if (tasks == 1 || type == GroupingType::kGlobal) {
        ASSERT_EQ(only, 1);
        auto g = f.Make(type, spec.fields, is_local);
        EXPECT_EQ(Distribute(*g, 100,
                             [](int i) {
                               return Values{i % 7, i};
                             }),
                  (std::map<int, int>{{1, 100}}));
      } else {
        EXPECT_EQ(only, -1);
      }
    }
    const GroupingSpec by_user{GroupingType::kCustom, {}, custom};
    EXPECT_EQ(OnlyTask(by_user, targets), -1) << "user code may drop or repeat";
  }
}

TEST(GroupingTest, FieldsGroupingInARunDeliversEachWordToOneTask) {
  std::vector<Values> rows;
  for (int i = 0; i < 5000; ++i) rows.push_back({"w" + std::to_string(i % 37), i});
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.SetSpout(
      "src",
      [rows] {
        return std::make_unique<testing::ListSpout>(Fields{"key", "n"}, rows);
      },
      2);
  b.SetBolt(
       "dst", [recorder] { return std::make_unique<testing::RecordingBolt>(recorder); }, 4)
      .FieldsGrouping("src", {"key"});
  LocalCluster cluster(b.Build());
  const RunSummary s = cluster.Run();
  ASSERT_TRUE(s.completed);
  std::map<std::string, std::set<int>> tasks;
  for (const auto& r : recorder->records()) tasks[r.values[0].AsString()].insert(r.task);
  EXPECT_EQ(recorder->records().size(), 5000u);
  ASSERT_EQ(tasks.size(), 37u);
  for (const auto& [key, t] : tasks) {
    ASSERT_EQ(t.size(), 1u) << key;
    EXPECT_EQ(*t.begin(), 1 + static_cast<int>(topology::StableHash(topology::Value(key)) % 4));
  }
}

}  // namespace
}  // namespace tempest::runtime

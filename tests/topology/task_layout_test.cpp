#include "topology/task_layout.h"

#include <gtest/gtest.h>

#include "topology/topology_spec.h"

namespace tempest::topology {
namespace {

TEST(TaskLayoutTest, NumbersTasksFromOneInSortedComponentOrder) {
  TopologySpec spec;
  for (auto [id, p] : {std::pair{"zeta", 2}, {"alpha", 3}, {"mid", 1}}) {
    ComponentSpec c;
    c.id = id;
    c.parallelism = p;
    spec.components.push_back(c);
  }
  const TaskLayout layout(spec);
  EXPECT_EQ(layout.task_count(), 6);
  EXPECT_EQ(layout.TasksOf("alpha"), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(layout.TasksOf("mid"), (std::vector<int>{4}));
  EXPECT_EQ(layout.TasksOf("zeta"), (std::vector<int>{5, 6}));
  EXPECT_TRUE(layout.TasksOf("nope").empty());
  EXPECT_EQ(layout.ComponentOf(5), "zeta");
  EXPECT_EQ(layout.IndexInComponent(6), 1);
  EXPECT_FALSE(layout.IsTask(0));
  EXPECT_FALSE(layout.IsTask(7));
}

TEST(TaskLayoutTest, AckerTasksComeAfterEveryComponentsTasks) {
  TopologySpec spec;
  for (auto [id, p] : {std::pair{"b", 2}, {"a", 1}}) {
    ComponentSpec c;
    c.id = id;
    c.parallelism = p;
    spec.components.push_back(c);
  }
  const TaskLayout layout(spec, 3);
  EXPECT_EQ(layout.task_count(), 6);
  EXPECT_EQ(layout.TasksOf("a"), (std::vector<int>{1}));  // user tasks keep their numbers
  EXPECT_EQ(layout.TasksOf("b"), (std::vector<int>{2, 3}));
  EXPECT_EQ(layout.AckerTaskIds(), (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(layout.ComponentOf(5), "__acker");
  EXPECT_EQ(layout.IndexInComponent(6), 2);
  EXPECT_FALSE(layout.IsAcker(3));
  EXPECT_TRUE(layout.IsAcker(4));
  EXPECT_FALSE(layout.IsAcker(7));
  for (uint64_t high : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{0xFFFFFF}}) {
    EXPECT_EQ(layout.AckerOf((high << 40) | 0xFF'ABCD'ABCDull), 4 + static_cast<int>(high % 3));
  }
  EXPECT_TRUE(TaskLayout(spec).AckerTaskIds().empty());
}

TEST(TaskLayoutTest, AckerCountDefaultsToOnePerWorker) {
  TopologySpec spec;
  EXPECT_EQ(AckerTasks(spec, 1), 1);  // topology.acker.executors unset (-1)
  EXPECT_EQ(AckerTasks(spec, 3), 3);
  spec.config.acker_executors = 0;
  EXPECT_EQ(AckerTasks(spec, 3), 0);
  spec.config.acker_executors = 2;
  EXPECT_EQ(AckerTasks(spec, 5), 2);
}

}  // namespace
}  // namespace tempest::topology

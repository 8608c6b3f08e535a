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

}  // namespace
}  // namespace tempest::topology

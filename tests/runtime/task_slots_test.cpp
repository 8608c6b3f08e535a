#include "runtime/queues/task_slots.h"

#include <gtest/gtest.h>

#include <vector>

namespace tempest::runtime {
namespace {

// Checks every task id from 0 to `top` against the set: members get their position, others -1.
void ExpectSlots(const std::vector<int>& tasks, int top) {
  const TaskSlots slots(tasks);
  ASSERT_EQ(slots.size(), tasks.size());
  std::size_t next = 0;
  for (int t = 0; t <= top; ++t) {
    if (next < tasks.size() && tasks[next] == t) {
      EXPECT_EQ(slots.Of(t), static_cast<int>(next)) << "task " << t;
      ++next;
    } else {
      EXPECT_EQ(slots.Of(t), -1) << "task " << t;
    }
  }
}

TEST(TaskSlotsTest, EmptySetHasNoSlots) {
  const TaskSlots slots(std::vector<int>{});
  EXPECT_EQ(slots.size(), 0u);
  EXPECT_EQ(slots.Of(1), -1);
  EXPECT_EQ(TaskSlots().Of(0), -1);
}

TEST(TaskSlotsTest, OneRun) { ExpectSlots({3, 4, 5, 6}, 10); }

TEST(TaskSlotsTest, FewRunsAreScanned) { ExpectSlots({1, 2, 5, 9, 10, 11, 20}, 25); }

TEST(TaskSlotsTest, ManyRunsAreBisected) {
  std::vector<int> tasks;
  for (int t = 2; t < 400; t += 3) tasks.push_back(t);  // 133 runs of one
  for (int t = 500; t < 520; ++t) tasks.push_back(t);   // and a long one
  ExpectSlots(tasks, 600);
}

TEST(TaskSlotsTest, IdsFarApartCostNothing) {
  const TaskSlots slots(std::vector<int>{1, 2'000'000'000});
  EXPECT_EQ(slots.Of(2'000'000'000), 1);
  EXPECT_EQ(slots.Of(-5), -1);
  EXPECT_EQ(slots.Of(1'999'999'999), -1);
}

}  // namespace
}  // namespace tempest::runtime

// The progress line a run prints without a terminal: every component's total and rate since the
// line before, the spouts' trees, the errors of every task (the ackers' too).
#include "launch/progress_line.h"

#include <gtest/gtest.h>

namespace tempest::launch {
namespace {

runtime::TaskSnapshot Task(int task, std::string component) {
  runtime::TaskSnapshot t;
  t.task = task;
  t.component = std::move(component);
  return t;
}

topology::ComponentSpec Component(std::string id, topology::ComponentKind kind) {
  topology::ComponentSpec c;
  c.id = std::move(id);
  c.kind = kind;
  return c;
}

TEST(ProgressLineTest, TotalsAndRatesSinceTheLineBefore) {
  topology::TopologySpec spec;
  spec.components.push_back(Component("gen", topology::ComponentKind::kSpout));
  spec.components.push_back(Component("split", topology::ComponentKind::kBolt));
  ProgressLine progress(spec);
  std::vector<runtime::TaskSnapshot> tasks = {Task(1, "gen"), Task(2, "split"), Task(3, "split"),
                                              Task(4, "__acker")};
  tasks[0].emitted = 20'000;
  tasks[0].acked = 15'000;
  tasks[0].failed = 2;
  tasks[1].executed = 9'000;
  tasks[1].emitted = 50'000;  // a bolt's emits are the next component's inputs, not shown
  tasks[2].executed = 8'000;
  tasks[3].errors = 1;
  EXPECT_EQ(progress.Render(tasks, 2.0),
            "progress 2.0 s: gen emitted 20000 (10.0k/s); split executed 17000 (8.5k/s); trees "
            "acked 15000, failed 2; errors 1");
  tasks[0].emitted = 4'020'000;
  tasks[1].executed = 1'009'000;
  tasks[2].dropped = 7;
  EXPECT_EQ(progress.Render(tasks, 4.0),
            "progress 4.0 s: gen emitted 4020000 (2.00M/s); split executed 1017000 (500.0k/s); "
            "trees acked 15000, failed 2; errors 1; dropped 7");
  // A spout that reports its input's size adds the share read.
  tasks[0].gauges = {{"input bytes read", 300}, {"input bytes", 1200}};
  EXPECT_EQ(progress.Render(tasks, 6.0),
            "progress 6.0 s: gen emitted 4020000 (0/s); split executed 1017000 (0/s); trees acked "
            "15000, failed 2; errors 1; dropped 7; input 25% read, ETA 18 s");
  tasks[0].gauges.clear();
  // Nothing moved: the rates are 0; a count that went back (a restarted worker's) is not negative.
  tasks[1].executed = 0;
  EXPECT_EQ(progress.Render(tasks, 14.0),
            "progress 14.0 s: gen emitted 4020000 (0/s); split executed 8000 (0/s); trees acked "
            "15000, failed 2; errors 1; dropped 7");
}

}  // namespace
}  // namespace tempest::launch

// The summary table printed after a run: one line per component, then the optional lines
// (inputs dropped, gauges, tracked trees, workers) only for what happened.
#include "launch/run_display.h"

#include <gtest/gtest.h>

namespace tempest::launch {
namespace {

runtime::ComponentSummary Component(std::string id, int tasks) {
  runtime::ComponentSummary c;
  c.id = std::move(id);
  c.tasks = tasks;
  return c;
}

TEST(RunDisplayTest, GaugesFollowTheDroppedLinesInReportedOrder) {
  runtime::RunSummary s;
  s.components.push_back(Component("gen", 1));
  runtime::ComponentSummary join = Component("join", 2);
  join.executed = 2000;
  join.dropped = 3;
  join.dropped_by_cause = {{"late", 2}, {"no_timestamp", 1}};
  join.gauges = {{"state rows left", 1200}, {"state rows right", 800}};
  s.components.push_back(join);
  runtime::ComponentSummary sink = Component("sink", 1);
  sink.gauges = {{"open files", 1}};
  s.components.push_back(sink);
  s.seconds = 1.5;
  EXPECT_EQ(RunDisplay::SummaryTable(s),
            "component        tasks      emitted     executed        acked    failed  errors\n"
            "gen                  1            0            0            0         0       0\n"
            "join                 2            0         2000            0         0       0\n"
            "sink                 1            0            0            0         0       0\n"
            "join: 3 inputs dropped (late 2, no_timestamp 1)\n"
            "join: state rows left 1200, state rows right 800\n"
            "sink: open files 1\n"
            "finished in 1.500 s\n");
}

TEST(RunDisplayTest, NoGaugesNoGaugeLine) {
  runtime::RunSummary s;
  s.components.push_back(Component("gen", 1));
  EXPECT_EQ(RunDisplay::SummaryTable(s),
            "component        tasks      emitted     executed        acked    failed  errors\n"
            "gen                  1            0            0            0         0       0\n"
            "finished in 0.000 s\n");
}

}  // namespace
}  // namespace tempest::launch

// The share of a bounded input read, from the spouts' input gauges, as the progress line and the
// terminal's bar show it.
#include "launch/input_progress.h"

#include <gtest/gtest.h>

#include "launch/run_display.h"

namespace tempest::launch {
namespace {

runtime::TaskSnapshot Reader(int task, uint64_t read, uint64_t size) {
  runtime::TaskSnapshot t;
  t.task = task;
  t.component = "lines";
  t.gauges = {{"input bytes read", read}, {"input bytes", size}};
  return t;
}

TEST(InputProgressTest, SumsTheGaugesOfEveryTask) {
  const InputProgress p = InputProgress::Of({Reader(1, 100, 1000), Reader(2, 300, 1000)});
  EXPECT_EQ(p.read, 400u);
  EXPECT_EQ(p.total, 2000u);
  // 20% in 10 s: the other 80% at the same rate take 40 s.
  EXPECT_EQ(p.Text(10), "20% read, ETA 40 s");
  EXPECT_EQ(p.Bar(10), "[##        ]");
}

TEST(InputProgressTest, NoGaugesNoText) {
  runtime::TaskSnapshot t;
  t.gauges = {{"rows held", 5}};
  const InputProgress p = InputProgress::Of({t});
  EXPECT_EQ(p.total, 0u);
  EXPECT_EQ(p.Text(3), "");
}

TEST(InputProgressTest, TheEndsOfTheRun) {
  EXPECT_EQ(InputProgress::Of({Reader(1, 0, 1000)}).Text(0), "0% read");
  EXPECT_EQ(InputProgress::Of({Reader(1, 0, 1000)}).Bar(4), "[    ]");
  // 99.9% read is not shown as 100%; more than the size (a growing file) is all of it.
  EXPECT_EQ(InputProgress::Of({Reader(1, 999, 1000)}).Text(999), "99% read, ETA 1 s");
  EXPECT_EQ(InputProgress::Of({Reader(1, 1200, 1000)}).Text(5), "100% read");
  EXPECT_EQ(InputProgress::Of({Reader(1, 1000, 1000)}).Bar(4), "[####]");
}

TEST(InputProgressTest, DurationsReadAsMinutesAndHours) {
  EXPECT_EQ(DurationText(0.4), "0 s");
  EXPECT_EQ(DurationText(59.4), "59 s");
  EXPECT_EQ(DurationText(185), "3 min 05 s");
  EXPECT_EQ(DurationText(7620), "2 h 07 min");
}

TEST(InputProgressTest, TheTerminalShowsABarUnderTheComponents) {
  RunDisplay display;
  std::vector<runtime::TaskSnapshot> tasks = {Reader(1, 250, 1000)};
  tasks[0].emitted = 40;
  EXPECT_EQ(
      display.Render(tasks, 1.0, 5.0),
      "  lines            in        0/s out       40/s   total in            0 out           40\n"
      "  input [#######                       ] 25% read, ETA 15 s\n");
}

}  // namespace
}  // namespace tempest::launch

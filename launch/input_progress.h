#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/run_summary.h"

namespace tempest::launch {

// How much of a bounded run's input the spouts have read: their "input bytes read" and "input
// bytes" gauges (topology/input_gauges.h) summed over every task. total 0: no spout says.
struct InputProgress {
  uint64_t read = 0;
  uint64_t total = 0;

  static InputProgress Of(const std::vector<runtime::TaskSnapshot>& tasks);
  // "38% read, ETA 12 s" at `elapsed` seconds into the run (the ETA assumes the rate so far);
  // "100% read" once all is read.
  std::string Text(double elapsed) const;
  // A bar of `width` characters, filled in proportion: "[#####     ]".
  std::string Bar(int width) const;
};

// A duration as the displays show it: "42 s", "3 min 05 s", "2 h 07 min".
std::string DurationText(double seconds);

}  // namespace tempest::launch

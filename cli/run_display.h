#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "runtime/local_cluster.h"

namespace tempest::cli {

// The live per-component lines shown on a terminal during a run, and the summary table after.
// Not thread-safe: call from one thread.
class RunDisplay {
 public:
  explicit RunDisplay(std::FILE* out) : out_(out) {}

  // Redraws one line per component: tuples in/out per second since the last call, and totals.
  void Update(const std::vector<runtime::TaskSnapshot>& tasks, double seconds_since_last);
  // Removes the live lines (before the summary or an error).
  void Clear();

  static std::string SummaryTable(const runtime::RunSummary& summary);

 private:
  struct Totals {
    std::string component;
    uint64_t in = 0;
    uint64_t out = 0;
  };
  std::FILE* out_;
  std::vector<Totals> last_;
  int lines_ = 0;
};

}  // namespace tempest::cli

#pragma once

#include <string>
#include <vector>

#include "runtime/local_cluster.h"

namespace tempest::launch {

// The live per-component lines of a running topology, and the summary table after it. Renders
// text only; Console draws it. Not thread-safe: call from one thread.
class RunDisplay {
 public:
  // One line per component: tuples in/out per second since the last call, and totals; then, when
  // the spouts report their input's size (InputProgress), a bar of the share read and an ETA
  // (`elapsed`: seconds since the start).
  std::string Render(const std::vector<runtime::TaskSnapshot>& tasks, double seconds_since_last,
                     double elapsed = 0);

  static std::string SummaryTable(const runtime::RunSummary& summary);

 private:
  struct Totals {
    std::string component;
    uint64_t in = 0;
    uint64_t out = 0;
  };
  std::vector<Totals> last_;
};

}  // namespace tempest::launch

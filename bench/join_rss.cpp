// Peak RSS of a JoinBolt topology against its tumbling window's length: PairedSpout (n ids, each
// on stream a and then b) -> JoinBolt (b to a on key, count windows of W tuples) -> NullBolt,
// chained, acking off, one process. Every W gets the same n, so what a larger W adds to the peak
// is the window the join holds (its packed rows, events and per-window arrays): the table
// reports it per window tuple against the smallest W's run. Usage:
//   join_rss                       W = 1000, 10000 and 100000, one child process per run (peak
//                                  RSS only grows), the median of 5 runs each, as a table
//   join_rss --window W            one run; prints its peak RSS in KiB
// Uses only what 89388a3 already had, so this file and peak_rss.h measure that commit too.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "bench/join_topology.h"
#include "bench/peak_rss.h"
#include "bolts/null_bolt.h"
#include "runtime/local_cluster.h"
#include "topology/topology_builder.h"

namespace {

using namespace tempest;

constexpr uint64_t kIds = 300'000;  // 600,000 input tuples: three windows of the largest W
constexpr uint64_t kKeys = 10'000;
constexpr uint64_t kWindows[] = {1'000, 10'000, 100'000};
// Runs per window: how many batches are in flight at the peak varies from run to run.
constexpr int kRuns = 5;

int RunOne(uint64_t window) {
  topology::TopologyBuilder b("bench-join-rss");
  b.Config().acker_executors = 0;
  b.Config().chaining = true;
  bench::AddPairedSpout(b, kIds, kKeys);
  b.SetBolt("join", bench::JoinBToA(window, bolts::JoinSelector::kStream).Build())
      .GlobalGrouping("ab", "a")
      .GlobalGrouping("ab", "b");
  b.SetBolt("sink", [] { return std::make_unique<bolts::NullBolt>(); }).ShuffleGrouping("join");
  const runtime::RunSummary s = runtime::LocalCluster(b.Build()).Run();
  const runtime::ComponentSummary* join = s.Find("join");
  if (!s.completed || join == nullptr || join->executed != 2 * kIds) {
    fmt::print(stderr, "run failed or incomplete: {}\n", s.error);
    return 1;
  }
  fmt::print("{}\n", bench::PeakRssKib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[1]) == "--window") {
    return RunOne(std::strtoull(argv[2], nullptr, 10));
  }
  if (argc != 1) {
    fmt::print(stderr, "usage: join_rss [--window W]\n");
    return 2;
  }
  fmt::print("| window W | peak RSS MiB | bytes per window tuple over W = {} |\n|---|---|---|\n",
             kWindows[0]);
  long reference = -1;
  for (uint64_t w : kWindows) {
    std::vector<long> runs;
    for (int i = 0; i < kRuns; ++i)
      runs.push_back(bench::RunChildForPeakRss(argv[0], {"--window", std::to_string(w)}));
    std::sort(runs.begin(), runs.end());
    if (runs.front() < 0) {
      fmt::print(stderr, "a run with window {} failed\n", w);
      return 1;
    }
    const long kib = runs[kRuns / 2];
    if (reference < 0) reference = kib;
    const double per_tuple = w == kWindows[0] ? 0.0
                                              : static_cast<double>(kib - reference) * 1024.0 /
                                                    static_cast<double>(w - kWindows[0]);
    fmt::print("| {} | {:.1f} | {:.0f} |\n", w, kib / 1024.0, per_tuple);
    std::fflush(stdout);
  }
  return 0;
}

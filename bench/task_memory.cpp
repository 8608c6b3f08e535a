// Peak memory of a run against its task count: what each task holds for the tasks it sends to.
//   fan:  one GeneratorSpout task -shuffle-> a NullBolt of N-2 tasks (edges linear in N)
//   mesh: a GeneratorSpout of N/2-1 tasks -shuffle-> a NullBolt of N/2-1 tasks (every spout task
//         sends to every bolt task: edges grow as N^2/4)
// Each includes one acker task. Usage:
//   task_memory                      every shape at 500, 1000, 2000 and 4000 tasks, one child
//                                    process each (peak RSS only grows), as a table
//   task_memory --shape S --tasks N  one run; prints the peak RSS in KiB
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bench/peak_rss.h"
#include "bolts/null_bolt.h"
#include "runtime/local_cluster.h"
#include "spouts/generator_spout.h"
#include "topology/topology_builder.h"

namespace {

using namespace tempest;

constexpr uint64_t kTuples = 200'000;

int RunOne(std::string_view shape, int tasks) {
  const bool mesh = shape == "mesh";
  const int spouts = mesh ? tasks / 2 - 1 : 1;
  const int bolts = mesh ? tasks / 2 - 1 : tasks - 2;
  topology::TopologyBuilder b;
  b.Config().acker_executors = 1;
  b.SetSpout(
      "gen",
      [] {
        return std::make_unique<spouts::GeneratorSpout>(
            spouts::GeneratorSpoutConfig{.count = kTuples});
      },
      spouts);
  b.SetBolt(
       "sink", [] { return std::make_unique<bolts::NullBolt>(); }, bolts)
      .ShuffleGrouping("gen");
  const runtime::RunSummary s = runtime::LocalCluster(b.Build()).Run();
  if (!s.completed) {
    fmt::print(stderr, "run failed: {}\n", s.error);
    return 1;
  }
  fmt::print("{}\n", bench::PeakRssKib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string_view(argv[1]) == "--shape" &&
      std::string_view(argv[3]) == "--tasks") {
    return RunOne(argv[2], std::atoi(argv[4]));
  }
  if (argc != 1) {
    fmt::print(stderr, "usage: task_memory [--shape fan|mesh --tasks N]\n");
    return 2;
  }
  fmt::print("| shape | tasks | peak RSS MiB | KiB per task |\n|---|---|---|---|\n");
  for (const char* shape : {"fan", "mesh"}) {
    for (int tasks : {500, 1000, 2000, 4000}) {
      const long kib =
          bench::RunChildForPeakRss(argv[0], {"--shape", shape, "--tasks", std::to_string(tasks)});
      fmt::print("| {} | {} | {:.0f} | {:.1f} |\n", shape, tasks, kib / 1024.0,
                 static_cast<double>(kib) / tasks);
      std::fflush(stdout);
    }
  }
  return 0;
}

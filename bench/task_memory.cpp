// Peak memory of a run against its task count: what each task holds for the tasks it sends to.
//   fan:  one GeneratorSpout task -shuffle-> a NullBolt of N-2 tasks (edges linear in N)
//   mesh: a GeneratorSpout of N/2-1 tasks -shuffle-> a NullBolt of N/2-1 tasks (every spout task
//         sends to every bolt task: edges grow as N^2/4)
// Each includes one acker task. Usage:
//   task_memory                      every shape at 500, 1000, 2000 and 4000 tasks, one child
//                                    process each (peak RSS only grows), as a table
//   task_memory --shape S --tasks N  one run; prints the peak RSS in KiB
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "bolts/null_bolt.h"
#include "runtime/local_cluster.h"
#include "spouts/generator_spout.h"
#include "topology/topology_builder.h"

namespace {

using namespace tempest;

constexpr uint64_t kTuples = 200'000;

long PeakRssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

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
  fmt::print("{}\n", PeakRssKib());
  return 0;
}

// Runs this program for one shape and size; its peak RSS in KiB, or -1.
long Child(const char* self, const char* shape, int tasks) {
  int out[2];
  if (::pipe(out) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    const std::string n = std::to_string(tasks);
    ::execl(self, self, "--shape", shape, "--tasks", n.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  ::close(out[1]);
  char buf[64] = {};
  const ssize_t got = ::read(out[0], buf, sizeof buf - 1);
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return std::strtol(buf, nullptr, 10);
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
      const long kib = Child(argv[0], shape, tasks);
      fmt::print("| {} | {} | {:.0f} | {:.1f} |\n", shape, tasks, kib / 1024.0,
                 static_cast<double>(kib) / tasks);
      std::fflush(stdout);
    }
  }
  return 0;
}

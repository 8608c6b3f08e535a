// The `tempest` command: run, validate and draw topology files (DESIGN.md 2.1).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <thread>

#include "bolts/builtin_bolts.h"
#include "cli/run_display.h"
#include "runtime/local_cluster.h"
#include "runtime/process_cluster.h"
#include "runtime/worker.h"
#include "spouts/builtin_spouts.h"
#include "topology/config_node.h"
#include "topology/errors.h"
#include "topology/graph.h"
#include "topology/yaml_loader.h"

namespace {

using namespace tempest;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitInvalid = 2;

struct LoadFlags {
  std::string file;
  std::vector<std::string> set;
  std::string filter;
  bool env_filter = false;
};

void AddLoadFlags(CLI::App& cmd, LoadFlags& flags) {
  cmd.add_option("FILE.yaml", flags.file, "The topology file")->required();
  cmd.add_option("--set", flags.set,
                 "KEY=VALUE: set topology config KEY (e.g. topology.workers=2) and property "
                 "${KEY}; repeatable")
      ->allow_extra_args(false);  // one KEY=VALUE per --set, so FILE.yaml may follow it
  cmd.add_option("--filter", flags.filter,
                 "Properties for ${name} substitution: a .properties or .yaml file");
  cmd.add_flag("--env-filter", flags.env_filter, "Let ${ENV-NAME} read environment variables");
}

std::shared_ptr<const topology::TopologySpec> Load(const LoadFlags& flags) {
  topology::LoadOptions options;
  for (const std::string& kv : flags.set) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw CLI::ValidationError("--set", "expected KEY=VALUE, found \"" + kv + "\"");
    }
    options.set.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  options.filter_file = flags.filter;
  options.env_filter = flags.env_filter;
  return topology::LoadTopology(flags.file, options);
}

int Validate(const LoadFlags& flags) {
  const auto spec = Load(flags);
  int tasks = 0, spouts = 0, bolts = 0, streams = 0;
  for (const auto& c : spec->components) {
    tasks += c.parallelism;
    (c.kind == topology::ComponentKind::kSpout ? spouts : bolts) += 1;
    streams += static_cast<int>(c.inputs.size());
  }
  fmt::print("{}: topology '{}' is valid: {} spouts, {} bolts, {} streams, {} tasks\n", flags.file,
             spec->name, spouts, bolts, streams, tasks);
  return kExitOk;
}

int Graph(const LoadFlags& flags) {
  fmt::print("{}", topology::ToDot(*Load(flags)));
  return kExitOk;
}

// The flags that make a worker load exactly what the supervisor loaded.
std::vector<std::string> LoadArguments(const LoadFlags& flags) {
  std::vector<std::string> args = {flags.file};
  for (const std::string& kv : flags.set) {
    args.push_back("--set");
    args.push_back(kv);
  }
  if (!flags.filter.empty()) {
    args.push_back("--filter");
    args.push_back(flags.filter);
  }
  if (flags.env_filter) args.push_back("--env-filter");
  return args;
}

std::string SelfExecutable() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find the tempest executable: " + ec.message());
  return path.string();
}

struct RunFlags {
  int workers = 0;
  bool quiet = false;
  std::string transport = "ipc";
};

// Runs a started cluster (LocalCluster or ProcessCluster) to its end: signals and the live
// display on Boost.Asio, the summary and the exit code after.
template <class Cluster>
int Drive(Cluster& cluster, bool quiet, const std::function<void()>& started = {}) {
  // Signals and the progress timer run on Boost.Asio; the run itself on the cluster's threads.
  // The signals are caught from before the start: one during it stops the run once it runs.
  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  cluster.Start();
  if (started) started();
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    if (!quiet) spdlog::info("signal {}: stopping, draining in-flight tuples", signal);
    cluster.Stop();
  });
  const bool live = !quiet && ::isatty(STDERR_FILENO) == 1;
  cli::RunDisplay display(stderr);
  boost::asio::steady_timer timer(io);
  std::function<void()> tick = [&] {
    timer.expires_after(std::chrono::seconds(1));
    timer.async_wait([&](const boost::system::error_code& ec) {
      if (ec) return;
      display.Update(cluster.Snapshot(), 1.0);
      tick();
    });
  };
  if (live) tick();
  runtime::RunSummary summary;
  std::thread waiter([&] {
    summary = cluster.Wait();
    boost::asio::post(io, [&] {
      signals.cancel();
      timer.cancel();
    });
  });
  io.run();
  waiter.join();
  if (live) display.Clear();

  if (!summary.error.empty()) {
    fmt::print(stderr, "tempest: run failed: {}\n", summary.error);
    return kExitFailed;
  }
  if (!quiet) fmt::print(stderr, "{}", cli::RunDisplay::SummaryTable(summary));
  if (!summary.completed) {
    fmt::print(stderr, "tempest: the run did not drain in time and was cut short\n");
    return kExitFailed;
  }
  return kExitOk;
}

int Run(const LoadFlags& flags, const RunFlags& run) {
  auto spec = Load(flags);
  const int workers = run.workers > 0 ? run.workers : spec->config.workers;
  if (workers <= 1) {
    runtime::LocalCluster cluster(spec);
    return Drive(cluster, run.quiet);
  }
  runtime::ProcessRunOptions options;
  options.workers = workers;
  options.worker_command = {SelfExecutable(), "worker"};
  for (std::string& a : LoadArguments(flags)) options.worker_command.push_back(std::move(a));
  if (run.quiet) options.worker_command.push_back("--quiet");
  options.endpoint =
      run.transport == "tcp" ? transport::EndpointKind::kTcp : transport::EndpointKind::kIpc;
  options.worker_timeout = std::chrono::seconds(spec->config.worker_timeout_secs);
  runtime::ProcessCluster cluster(spec, options);
  return Drive(cluster, run.quiet, [&] {
    const std::vector<runtime::WorkerStatus> status = cluster.Workers();
    const bool running = std::all_of(status.begin(), status.end(),
                                     [](const runtime::WorkerStatus& w) { return w.running; });
    if (run.quiet || !running) return;  // a run that failed while starting says why at its end
    std::string pids;
    for (const runtime::WorkerStatus& w : status) {
      pids += fmt::format("{}worker {} (pid {}, tasks {})", pids.empty() ? "" : ", ", w.index,
                          w.pid, fmt::join(w.tasks, " "));
    }
    spdlog::info("{} workers running: {}", workers, pids);
  });
}

// `tempest worker`: one worker process of a multi-process run, started by `tempest run`.
int Worker(const LoadFlags& flags, const std::vector<std::string>& worker_flags, bool quiet) {
  runtime::WorkerOptions options;
  try {
    options = runtime::ParseWorkerFlags(worker_flags);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("worker", e.what());
  }
  // Ctrl-C on a terminal reaches the whole process group: the supervisor alone decides.
  std::signal(SIGINT, SIG_IGN);
  spdlog::set_pattern(fmt::format("[%H:%M:%S.%e] [worker {}] [%l] %v", options.index));
  if (quiet) spdlog::set_level(spdlog::level::err);
  return runtime::RunWorker(Load(flags), options);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Tempest runs stream-processing topologies defined in YAML (Flux-shaped).\n"
      "  tempest run wc.yaml              run it until its spouts are exhausted (Ctrl-C stops)\n"
      "  tempest validate wc.yaml         check everything a run would check; start nothing\n"
      "  tempest graph wc.yaml | dot -Tsvg > wc.svg\n"
      "Exit codes: 0 success, 2 invalid topology or usage, 1 failure while running."};
  app.require_subcommand(1);
  LoadFlags flags;
  RunFlags run_flags;
  CLI::App* run = app.add_subcommand("run", "Run a topology; returns when it has drained");
  AddLoadFlags(*run, flags);
  run->add_option("--workers", run_flags.workers,
                  "Worker processes (default: topology.workers, else 1); 1 runs everything in "
                  "this process, N > 1 starts N workers under this supervisor")
      ->check(CLI::PositiveNumber);
  run->add_option("--transport", run_flags.transport,
                  "How workers talk: ipc (sockets in a private run folder) or tcp (127.0.0.1)")
      ->check(CLI::IsMember({"ipc", "tcp"}));
  run->add_flag("--quiet", run_flags.quiet, "Print only errors: no live progress, no summary");
  bool worker_quiet = false;
  CLI::App* worker = app.add_subcommand("worker", "One worker process (started by `run`)");
  worker->group("");  // internal: not in --help
  AddLoadFlags(*worker, flags);
  worker->add_flag("--quiet", worker_quiet);
  worker->allow_extras();  // the supervisor's flags (runtime::WorkerFlags), parsed by the runtime
  CLI::App* validate = app.add_subcommand("validate", "Check a topology file; start nothing");
  AddLoadFlags(*validate, flags);
  CLI::App* graph = app.add_subcommand("graph", "Print the topology as Graphviz DOT");
  AddLoadFlags(*graph, flags);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitInvalid;
  }
  spouts::RegisterBuiltinSpouts(topology::ComponentRegistry::Global());
  bolts::RegisterBuiltinBolts(topology::ComponentRegistry::Global());
  try {
    if (*validate) return Validate(flags);
    if (*graph) return Graph(flags);
    if (*worker) return Worker(flags, worker->remaining(), worker_quiet);
    return Run(flags, run_flags);
  } catch (const topology::ConfigError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return kExitInvalid;
  } catch (const topology::InvalidTopologyException& e) {
    fmt::print(stderr, "{}: {}\n", flags.file, e.what());
    return kExitInvalid;
  } catch (const CLI::ValidationError& e) {
    fmt::print(stderr, "tempest: {}\n", e.what());
    return kExitInvalid;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tempest: {}\n", e.what());
    return kExitFailed;
  }
}

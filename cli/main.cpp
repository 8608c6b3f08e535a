// The `tempest` command: run, validate and draw topology files (docs/contracts.md, "Command
// line").
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "bolts/builtin_bolts.h"
#include "launch/console.h"
#include "launch/launch.h"
#include "runtime/process/worker.h"
#include "spouts/builtin_spouts.h"
#include "tempest/version.h"
#include "topology/config_node.h"
#include "topology/errors.h"
#include "topology/graph.h"
#include "topology/yaml_loader.h"

namespace {

using namespace tempest;

using launch::kExitInvalid;
using launch::kExitOk;

struct LoadFlags {
  std::string file;
  std::vector<std::string> set;
  std::string filter;
  bool env_filter = false;
  std::size_t max_file_bytes = topology::kMaxTopologyFileBytes;
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
  cmd.add_option("--max-file-bytes", flags.max_file_bytes,
                 "The largest topology, include or --filter file read (default 16 MiB)")
      ->check(CLI::PositiveNumber);
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
  options.max_file_bytes = flags.max_file_bytes;
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

struct RunFlags {
  int workers = 0;
  bool quiet = false;
  double progress_interval = launch::kDefaultProgressInterval.count() / 1000.0;  // seconds
  std::optional<int> metrics_port;
  std::string transport = "ipc";
  std::string log_level = "info";
  std::string log_file;
};

launch::LogSettings LogSettingsOf(const RunFlags& run) {
  launch::LogSettings log;
  try {
    log.level = launch::ParseLogLevel(run.log_level);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("--log-level", e.what());
  }
  log.file = run.log_file;
  return log;
}

int Run(const LoadFlags& flags, const RunFlags& run, char** argv) {
  launch::LaunchOptions options;
  options.workers = run.workers;
  options.endpoint =
      run.transport == "tcp" ? transport::EndpointKind::kTcp : transport::EndpointKind::kIpc;
  options.quiet = run.quiet;
  options.progress_interval = launch::ProgressInterval(run.progress_interval);
  options.metrics_port = run.metrics_port;
  options.log = LogSettingsOf(run);
  // A worker is this command again, with the same arguments: it loads the same topology.
  options.worker_command = {launch::SelfExecutable()};
  for (char** a = argv + 1; *a != nullptr; ++a) options.worker_command.emplace_back(*a);
  return launch::Launch(Load(flags), options);
}

// `tempest run` (or the internal `tempest worker`) in a process its supervisor started.
int Worker(const LoadFlags& flags, const RunFlags& run, const runtime::WorkerOptions& worker) {
  launch::LogSettings log = LogSettingsOf(run);
  if (run.quiet) log.level = spdlog::level::err;
  return launch::RunAsWorker(Load(flags), worker, log);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Tempest runs stream-processing topologies defined in YAML (Flux-shaped).\n"
      "  tempest run wc.yaml              run it until its spouts are exhausted (Ctrl-C stops)\n"
      "  tempest validate wc.yaml         check everything a run would check; start nothing\n"
      "  tempest graph wc.yaml | dot -Tsvg > wc.svg\n"
      "stdout carries only what the topology writes there; logs and progress go to stderr.\n"
      "Exit codes: 0 success, 2 invalid topology or usage, 1 failure while running."};
  app.set_version_flag("--version", std::string("tempest ") + TEMPEST_VERSION);
  app.require_subcommand(1);
  LoadFlags flags;
  RunFlags run_flags;
  CLI::App* run = app.add_subcommand("run", "Run a topology; returns when it has drained");
  AddLoadFlags(*run, flags);
  run->add_option("--workers", run_flags.workers,
                  "Worker processes (default: topology.workers, else 1); 1 runs everything in "
                  "this process, N > 1 starts N workers under this supervisor")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  run->add_option("--transport", run_flags.transport,
                  "How workers talk: ipc (sockets in a private run folder) or tcp (127.0.0.1)")
      ->check(CLI::IsMember({"ipc", "tcp"}));
  run->add_flag("--quiet", run_flags.quiet, "Print only errors: no live progress, no summary");
  run->add_option("--progress-interval", run_flags.progress_interval,
                  "Seconds between progress lines on stderr when it is not a terminal (default "
                  "10; 0: none)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--metrics-port", run_flags.metrics_port,
                  "Port of the Prometheus endpoint http://127.0.0.1:PORT/metrics (default: a "
                  "free port, printed at the start; 0: none)")
      ->check(CLI::Range(0, 65535));
  run->add_option("--log-level", run_flags.log_level,
                  "trace, debug, info (default), warn, error, critical or off");
  run->add_option("--log-file", run_flags.log_file,
                  "Append logs (the workers' too) to this file instead of stderr");
  CLI::App* worker = app.add_subcommand("worker", "One worker process (started by `run`)");
  worker->group("");  // internal: not in --help
  AddLoadFlags(*worker, flags);
  worker->add_flag("--quiet", run_flags.quiet);
  worker->add_option("--progress-interval", run_flags.progress_interval);
  worker->add_option("--metrics-port", run_flags.metrics_port);
  worker->add_option("--log-level", run_flags.log_level);
  CLI::App* validate = app.add_subcommand("validate", "Check a topology file; start nothing");
  AddLoadFlags(*validate, flags);
  CLI::App* graph = app.add_subcommand("graph", "Print the topology as Graphviz DOT");
  AddLoadFlags(*graph, flags);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? launch::kExitOk : launch::kExitInvalid;
  }
  launch::Console::Get().ConfigureLogging({});  // stderr: stdout is the topology's
  spouts::RegisterBuiltinSpouts(topology::ComponentRegistry::Global());
  bolts::RegisterBuiltinBolts(topology::ComponentRegistry::Global());
  try {
    if (*validate) return Validate(flags);
    if (*graph) return Graph(flags);
    const std::optional<runtime::WorkerOptions> role = runtime::WorkerOptionsFromEnvironment();
    if (role) return Worker(flags, run_flags, *role);
    if (*worker) {
      throw CLI::ValidationError("worker", std::string("a worker is started by `tempest run` (") +
                                               runtime::kWorkerFlagsVariable + " is not set)");
    }
    return Run(flags, run_flags, argv);
  } catch (const topology::ConfigError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return launch::kExitInvalid;
  } catch (const topology::InvalidTopologyException& e) {
    fmt::print(stderr, "{}: {}\n", flags.file, e.what());
    return launch::kExitInvalid;
  } catch (const CLI::ValidationError& e) {
    fmt::print(stderr, "tempest: {}\n", e.what());
    return launch::kExitInvalid;
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "tempest: {}\n", e.what());
    return launch::kExitInvalid;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tempest: {}\n", e.what());
    return launch::kExitFailed;
  }
}

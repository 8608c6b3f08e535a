// The `tempest` command: run, validate and draw topology files (DESIGN.md 2.1).
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdio>
#include <thread>

#include "bolts/builtin_bolts.h"
#include "cli/run_display.h"
#include "runtime/local_cluster.h"
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

int Run(const LoadFlags& flags, int workers, bool quiet) {
  auto spec = Load(flags);
  const int wanted = workers > 0 ? workers : spec->config.workers;
  if (wanted > 1 && !quiet) {
    spdlog::warn(
        "{} worker processes requested; multi-process runs are not available yet, so "
        "this run uses one process (same results, one machine core set)",
        wanted);
  }
  runtime::LocalCluster cluster(spec);
  cluster.Start();

  // Signals and the progress timer run on Boost.Asio; the run itself on the cluster's threads.
  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
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
  int workers = 0;
  bool quiet = false;
  CLI::App* run = app.add_subcommand("run", "Run a topology; returns when it has drained");
  AddLoadFlags(*run, flags);
  run->add_option("--workers", workers,
                  "Worker processes (default: topology.workers, else 1); runs use one process "
                  "until multi-process support lands")
      ->check(CLI::PositiveNumber);
  run->add_flag("--quiet", quiet, "Print only errors: no live progress, no summary");
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
    return Run(flags, workers, quiet);
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

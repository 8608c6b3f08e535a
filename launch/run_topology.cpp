#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "launch/launch.h"
#include "runtime/process/worker.h"
#include "tempest/run.h"
#include "topology/errors.h"
#include "topology/topology_builder.h"

namespace tempest {
namespace {

struct Flags {
  launch::LaunchOptions options;
  double progress_interval = launch::kDefaultProgressInterval.count() / 1000.0;  // seconds
  std::string log_level = "info";
  std::string transport = "ipc";
};

// Tempest's own flags from argv; anything else belongs to the program and is left alone.
Flags ParseFlags(int argc, char** argv) {
  CLI::App app;
  app.set_help_flag();
  app.allow_extras();
  Flags flags;
  app.add_option("--workers", flags.options.workers)
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  app.add_option("--transport", flags.transport)->check(CLI::IsMember({"ipc", "tcp"}));
  app.add_flag("--quiet", flags.options.quiet);
  app.add_option("--progress-interval", flags.progress_interval)->check(CLI::NonNegativeNumber);
  app.add_option("--metrics-port", flags.options.metrics_port)->check(CLI::Range(0, 65535));
  app.add_option("--log-level", flags.log_level);
  app.add_option("--log-file", flags.options.log.file);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    throw std::invalid_argument(e.what());
  }
  flags.options.log.level = launch::ParseLogLevel(flags.log_level);
  flags.options.progress_interval = launch::ProgressInterval(flags.progress_interval);
  flags.options.endpoint =
      flags.transport == "tcp" ? transport::EndpointKind::kTcp : transport::EndpointKind::kIpc;
  if (flags.options.quiet) flags.options.log.level = spdlog::level::err;
  return flags;
}

}  // namespace

int RunTopology(int argc, char** argv, const TopologyBuilder& builder) {
  const char* program = argc > 0 ? argv[0] : "tempest";
  try {
    Flags flags = ParseFlags(argc, argv);
    if (const std::optional<runtime::WorkerOptions> worker =
            runtime::WorkerOptionsFromEnvironment()) {
      return launch::RunAsWorker(builder.Build(), *worker, flags.options.log);
    }
    flags.options.worker_command = {launch::SelfExecutable()};
    for (int i = 1; i < argc; ++i) flags.options.worker_command.emplace_back(argv[i]);
    return launch::Launch(builder.Build(), flags.options);
  } catch (const topology::InvalidTopologyException& e) {
    fmt::print(stderr, "{}: invalid topology: {}\n", program, e.what());
    return launch::kExitInvalid;
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "{}: {}\n", program, e.what());
    return launch::kExitInvalid;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\n", program, e.what());
    return launch::kExitFailed;
  }
}

}  // namespace tempest

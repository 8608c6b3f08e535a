#include "launch/launch.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <thread>

#include "launch/run_display.h"
#include "runtime/local_cluster.h"
#include "runtime/process/process_cluster.h"

namespace tempest::launch {
namespace {

// Runs a cluster (LocalCluster or ProcessCluster) to its end: signals and the live display on
// Boost.Asio, the run itself on the cluster's threads; the summary and the exit code after.
template <class Cluster>
int Drive(Cluster& cluster, bool quiet, const std::function<void()>& started = {}) {
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
  Console& console = Console::Get();
  const bool live = !quiet && console.Interactive();
  RunDisplay display;
  boost::asio::steady_timer timer(io);
  std::function<void()> tick = [&] {
    timer.expires_after(std::chrono::seconds(1));
    timer.async_wait([&](const boost::system::error_code& ec) {
      if (ec) return;
      console.ShowLive(display.Render(cluster.Snapshot(), 1.0));
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
  if (live) console.ClearLive();

  if (!summary.error.empty()) {
    fmt::print(stderr, "tempest: run failed: {}\n", summary.error);
    return kExitFailed;
  }
  if (!quiet) fmt::print(stderr, "{}", RunDisplay::SummaryTable(summary));
  if (!summary.completed) {
    fmt::print(stderr, "tempest: the run did not drain in time and was cut short\n");
    return kExitFailed;
  }
  return kExitOk;
}

LogSettings Effective(LogSettings log, bool quiet) {
  if (quiet) log.level = std::max(log.level, spdlog::level::err);
  return log;
}

}  // namespace

int Launch(std::shared_ptr<const topology::TopologySpec> spec, const LaunchOptions& options) {
  Console::Get().ConfigureLogging(Effective(options.log, options.quiet));
  const int workers = options.workers > 0 ? options.workers : spec->config.workers;
  if (workers <= 1) {
    runtime::LocalCluster cluster(spec);
    return Drive(cluster, options.quiet);
  }
  runtime::ProcessRunOptions run;
  run.workers = workers;
  run.worker_command = options.worker_command;
  run.endpoint = options.endpoint;
  run.worker_timeout = std::chrono::seconds(spec->config.worker_timeout_secs);
  run.worker_output = [](std::string_view line) { Console::Get().WriteLogLine(line); };
  runtime::ProcessCluster cluster(spec, run);
  return Drive(cluster, options.quiet, [&] {
    const std::vector<runtime::WorkerStatus> status = cluster.Workers();
    const bool running = std::all_of(status.begin(), status.end(),
                                     [](const runtime::WorkerStatus& w) { return w.running; });
    if (options.quiet || !running) return;  // a run that failed while starting says why at its end
    std::string pids;
    for (const runtime::WorkerStatus& w : status) {
      pids += fmt::format("{}worker {} (pid {}, tasks {})", pids.empty() ? "" : ", ", w.index,
                          w.pid, fmt::join(w.tasks, " "));
    }
    spdlog::info("{} workers running: {}", workers, pids);
  });
}

int RunAsWorker(std::shared_ptr<const topology::TopologySpec> spec,
                const runtime::WorkerOptions& worker, const LogSettings& log) {
  // Ctrl-C on a terminal reaches the whole process group: the supervisor alone decides.
  std::signal(SIGINT, SIG_IGN);
  LogSettings settings = log;
  settings.file.clear();  // the supervisor relays this process's stderr to its own log
  settings.pattern = fmt::format("[%H:%M:%S.%e] [worker {}] [%l] %v", worker.index);
  Console::Get().ConfigureLogging(settings);
  return runtime::RunWorker(std::move(spec), worker);
}

std::string SelfExecutable() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this program's executable: " + ec.message());
  return path.string();
}

}  // namespace tempest::launch

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
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "launch/http_routes.h"
#include "launch/metrics_server.h"
#include "launch/periodic_timer.h"
#include "launch/progress_line.h"
#include "launch/run_display.h"
#include "runtime/local_cluster.h"
#include "runtime/process/process_cluster.h"
#include "transport/transport.h"

namespace tempest::launch {
namespace {

// Exit code of a run ended by a second Ctrl-C (128 + SIGINT, as shells report it).
constexpr int kExitInterrupted = 130;
// How long after the drain timeout a stopped run may take to return before the process ends
// anyway (a bolt stuck in user code cannot be joined).
constexpr std::chrono::seconds kStopGrace{5};
// Signals this close to the first are the same interrupt delivered twice (GNU timeout, for one,
// signals its child and then the child's process group), not a second Ctrl-C.
constexpr std::chrono::milliseconds kSameInterrupt{200};

// Ends the process at once. The one place Tempest ends a process itself: the user interrupted
// twice, or the run did not stop after an interrupt, and threads stuck in user code cannot be
// joined (returning would run static destructors under them). Workers die with this process.
[[noreturn]] void ExitNow(int code, const std::string& why) {
  Console::Get().ClearLive();
  fmt::print(stderr, "tempest: {}\n", why);
  std::fflush(stderr);
  std::_Exit(code);
}

// The spouts' tuple trees that failed (or timed out) and were not replayed, and those still
// pending: after an interrupt, work that was not fully processed (stopped spouts replay
// nothing).
struct LostTrees {
  uint64_t failed = 0;
  uint64_t pending = 0;
  uint64_t given_up = 0;  // past topology.spout.max.retries
};
LostTrees LostTreesOf(const runtime::RunSummary& summary, const topology::TopologySpec& spec) {
  LostTrees lost;
  for (const topology::ComponentSpec& c : spec.components) {
    const runtime::ComponentSummary* s = summary.Find(c.id);
    if (c.kind != topology::ComponentKind::kSpout || s == nullptr) continue;
    lost.failed += s->failed > s->replayed ? s->failed - s->replayed : 0;
    lost.pending += s->pending;
    lost.given_up += s->dropped;
  }
  return lost;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The worker processes of a multi-process run; none for a run in this process.
template <class Cluster>
std::vector<runtime::WorkerStatus> WorkersOf(const Cluster& cluster) {
  if constexpr (requires { cluster.Workers(); }) {
    return cluster.Workers();
  } else {
    return {};
  }
}

// An address as a URL's host: an IPv6 one in brackets.
std::string UrlHost(const std::string& address) {
  return address.find(':') == std::string::npos ? address : "[" + address + "]";
}

// Runs a cluster (LocalCluster or ProcessCluster) to its end: signals and the live display on
// Boost.Asio, the run itself on the cluster's threads; the summary and the exit code after.
// Ctrl-C or SIGTERM drains the run (bounded by stop_timeout); a second one, or a run still
// running kStopGrace after the drain timeout, ends the process at once.
template <class Cluster>
int Drive(Cluster& cluster, const topology::TopologySpec& spec, const LaunchOptions& options,
          std::chrono::milliseconds stop_timeout, const std::string& ui_token,
          const std::function<void()>& started = {}) {
  const bool quiet = options.quiet;
  // The signals are caught from before the start: one during it stops the run once it runs.
  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  // Listening before the start: a port that is taken fails the run before anything runs.
  const auto start = std::chrono::steady_clock::now();
  std::optional<MetricsServer> metrics;
  std::function<void()> kill;  // set below, with the signal handling it shares
  const int metrics_port = options.metrics_port.value_or(spec.config.metrics_port);
  if (metrics_port != 0) {
    ServedRun served;
    served.spec = &spec;
    served.workers = std::max(1, options.workers > 0 ? options.workers : spec.config.workers);
    served.start = start;
    served.tasks = [&cluster] { return cluster.Snapshot(); };
    served.worker_status = [&cluster] { return WorkersOf(cluster); };
    served.set_active = [&cluster](bool active) { cluster.SetActive(active); };
    served.kill = [&kill] { kill(); };
    metrics.emplace(io, spec.config.metrics_host, static_cast<uint16_t>(std::max(0, metrics_port)),
                    HttpRoutes(std::move(served), ui_token));
  }
  cluster.Start();
  if (started) started();
  if (metrics && !quiet) {
    const std::string base =
        fmt::format("http://{}:{}", UrlHost(spec.config.metrics_host), metrics->port());
    spdlog::info("metrics at {}/metrics", base);
    if (!ui_token.empty()) spdlog::info("web UI at {}/?token={}", base, ui_token);
  }
  std::optional<std::chrono::steady_clock::time_point> interrupted;  // the first signal
  bool ended = false;  // the cluster has returned its summary: no handler may arm anything again
  boost::asio::steady_timer deadline(io);
  // A graceful stop (a signal, or kill from the web UI), bounded by the drain timeout.
  const auto stop = [&] {
    if (interrupted || ended) return;
    interrupted = std::chrono::steady_clock::now();
    cluster.Stop();
    deadline.expires_after(stop_timeout + kStopGrace);
    deadline.async_wait([&](const boost::system::error_code& e) {
      if (e || ended) return;
      ExitNow(launch::kExitFailed,
              fmt::format("the run did not stop within {} ms of the interrupt (a bolt stuck "
                          "in its code?); exiting",
                          (stop_timeout + kStopGrace).count()));
    });
  };
  kill = [&] {
    if (!quiet && !interrupted)
      spdlog::info("killed from the web UI: stopping, draining in-flight tuples");
    stop();
  };
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int signal) {
        if (ec || ended) return;
        const auto now = std::chrono::steady_clock::now();
        if (interrupted && now - *interrupted < kSameInterrupt) {
          signals.async_wait(on_signal);
          return;
        }
        if (interrupted) ExitNow(kExitInterrupted, "interrupted again: exiting at once");
        if (!quiet) {
          spdlog::info("signal {}: stopping, draining in-flight tuples (again to exit at once)",
                       signal);
        }
        stop();
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);
  Console& console = Console::Get();
  const bool live = !quiet && console.Interactive();
  RunDisplay display;
  PeriodicTimer live_timer(io, std::chrono::seconds(1), [&] {
    console.ShowLive(display.Render(cluster.Snapshot(), 1.0, SecondsSince(start)));
  });
  if (live) live_timer.Start();
  // Without a terminal, nothing else says what a long run is doing until it ends.
  ProgressLine progress(spec);
  PeriodicTimer progress_timer(io, options.progress_interval, [&] {
    console.WriteStatusLine(progress.Render(cluster.Snapshot(), SecondsSince(start)));
  });
  if (!quiet && !console.Interactive() && options.progress_interval.count() > 0) {
    progress_timer.Start();
  }
  runtime::RunSummary summary;
  std::thread waiter([&] {
    summary = cluster.Wait();
    boost::asio::post(io, [&] {
      ended = true;  // for handlers whose completion is already queued: cancel() cannot stop those
      signals.cancel();
      live_timer.Stop();
      progress_timer.Stop();
      if (metrics) metrics->Close();
      deadline.cancel();
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
  const LostTrees lost = LostTreesOf(summary, spec);
  if (interrupted && (lost.failed > 0 || lost.pending > 0)) {
    fmt::print(stderr,
               "tempest: interrupted with tuple trees not fully processed: {} failed and not "
               "replayed, {} still pending\n",
               lost.failed, lost.pending);
    return kExitFailed;
  }
  if (lost.given_up > 0) {
    fmt::print(stderr,
               "tempest: {} tuples failed past topology.spout.max.retries and were given up\n",
               lost.given_up);
    return kExitFailed;
  }
  return kExitOk;
}

LogSettings Effective(LogSettings log, bool quiet) {
  if (quiet) log.level = std::max(log.level, spdlog::level::err);
  return log;
}

// The run's private folder (0700), removed at its end: a multi-process run's ipc sockets, and
// the web UI's token (only this user can read it).
class RunFolder {
 public:
  explicit RunFolder(const std::string& name) : path_(transport::MakeRunDir(name)) {}
  ~RunFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  RunFolder(const RunFolder&) = delete;
  RunFolder& operator=(const RunFolder&) = delete;
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

}  // namespace

int Launch(std::shared_ptr<const topology::TopologySpec> spec, const LaunchOptions& options) {
  Console::Get().ConfigureLogging(Effective(options.log, options.quiet));
  const int workers = options.workers > 0 ? options.workers : spec->config.workers;
  const bool served = options.metrics_port.value_or(spec->config.metrics_port) != 0;
  std::optional<RunFolder> folder;
  if (served || workers > 1) folder.emplace(spec->name);
  const std::string ui_token = served ? MakeToken() : std::string();
  if (served) WriteToken(folder->path(), ui_token);
  if (workers <= 1) {
    const runtime::LocalRunOptions run;
    runtime::LocalCluster cluster(spec, run);
    return Drive(cluster, *spec, options, run.stop_timeout, ui_token, [&] {
      if (!options.quiet) spdlog::info("topology '{}' running in this process", spec->name);
    });
  }
  runtime::ProcessRunOptions run;
  run.workers = workers;
  run.worker_command = options.worker_command;
  run.endpoint = options.endpoint;
  run.worker_timeout = std::chrono::seconds(spec->config.worker_timeout_secs);
  run.worker_output = [](std::string_view line) { Console::Get().WriteLogLine(line); };
  run.run_dir = folder->path();
  runtime::ProcessCluster cluster(spec, run);
  return Drive(cluster, *spec, options, run.run.stop_timeout, ui_token, [&] {
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

#include "runtime/process/process_cluster.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>

#include "runtime/process/control_channel.h"
#include "runtime/process/output_relay.h"
#include "runtime/process/run_state.h"
#include "runtime/process/worker.h"
#include "runtime/process/worker_plan.h"
#include "runtime/process/worker_process.h"
#include "transport/control_message.h"

namespace tempest::runtime {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
using transport::ControlMessage;
using transport::ControlType;

namespace {

// A grace period for workers told to exit (or to abort) before they are killed.
constexpr std::chrono::seconds kExitGrace{5};

}  // namespace

class ProcessCluster::Supervisor {
 public:
  Supervisor(std::shared_ptr<const topology::TopologySpec> spec, ProcessRunOptions options)
      : spec_(std::move(spec)),
        options_(std::move(options)),
        layout_(*spec_, topology::AckerTasks(*spec_, std::max(1, options_.workers))),
        worker_of_(AssignTasks(layout_, std::max(1, options_.workers))),
        fingerprint_(TopologyFingerprint(*spec_)),
        output_(io_, options_.worker_output),
        sigchld_(io_, SIGCHLD),
        tick_(io_),
        stop_timer_(io_),
        kill_timer_(io_) {
    if (options_.workers < 1) throw std::invalid_argument("a run needs at least one worker");
    if (options_.worker_command.empty()) {
      throw std::invalid_argument("no worker command: the supervisor cannot start workers");
    }
    for (int i = 0; i < options_.workers; ++i) {
      Worker& w = workers_.emplace_back();
      w.index = i;
      w.tasks = TasksOfWorker(worker_of_, i);
    }
  }

  ~Supervisor() {
    if (thread_.joinable()) {
      Stop();
      thread_.join();
    }
    if (own_run_dir_ && !run_dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(run_dir_, ec);
    }
  }

  const std::string& run_dir() const noexcept { return run_dir_; }

  void Start() {
    if (thread_.joinable() || summary_) throw std::logic_error("ProcessCluster started twice");
    topology::Validate(*spec_);
    run_dir_ = options_.run_dir;
    if (run_dir_.empty()) {
      run_dir_ = transport::MakeRunDir(spec_->name);
      own_run_dir_ = true;
    }
    // tcp ports are open to every local user: the links are CURVE-secured with keys of this
    // run only (ipc sockets live in the 0700 run folder).
    if (options_.endpoint == transport::EndpointKind::kTcp) curve_ = transport::MakeCurveKeys();
    started_at_ = Clock::now();
    thread_ = std::thread([this] { Main(); });
    status_.Wait([&](const ClusterStatus& s) { return s.starts >= options_.workers || s.ended; });
  }

  void Stop() {
    asio::post(io_, [this] { RequestStop(); });
  }

  void SetActive(bool active) {
    asio::post(io_, [this, active] {
      active_ = active;
      for (Worker& w : workers_) {
        if (w.started) Send(w, ActivationMessage());
      }
    });
  }

  RunSummary Wait() {
    // The summary is written by the supervisor thread just before it ends: join first.
    if (thread_.joinable()) thread_.join();
    if (!summary_) throw std::logic_error("ProcessCluster::Wait before Start");
    return *summary_;
  }

  std::vector<TaskSnapshot> Snapshot() const { return status_.Tasks(); }

  std::vector<WorkerStatus> Workers() const { return status_.Workers(); }

  bool WaitFor(const std::function<bool(const ClusterStatus&)>& ready,
               std::chrono::milliseconds timeout) const {
    return status_.WaitFor(ready, timeout);
  }

 private:
  enum class Phase {
    kConnecting,  // waiting for every worker's hello
    kPreparing,   // peers sent; waiting for every worker to be ready
    kRunning,
    kStopping,  // graceful stop requested
    kAborting,  // fatal error or stop timeout: abort sent
    kExiting,   // every worker done: exit sent
  };

  struct Worker {
    int index = 0;
    std::vector<int> tasks;
    pid_t pid = 0;
    int incarnation = -1;
    int restarts = 0;
    std::unique_ptr<ControlChannel> channel;  // of the current incarnation, while it lives
    bool hello = false, peers_sent = false, ready = false, started = false;
    bool done = false, done_completed = false, exited = true;
    std::string endpoint;
    Clock::time_point last_heard;
    WorkerCounters counters;
  };

  void Main() {
    sigchld_.async_wait([this](const boost::system::error_code& ec, int) { OnSigchld(ec); });
    for (Worker& w : workers_) Spawn(w);
    Tick();
    io_.run();
    output_.Drain();
    End();
  }

  // --- processes -------------------------------------------------------------------------

  void Spawn(Worker& w) {
    WorkerOptions wo;
    wo.index = w.index;
    wo.workers = options_.workers;
    wo.control_fd = 3;
    wo.run_dir = run_dir_;
    wo.endpoint = options_.endpoint;
    wo.curve = curve_;
    wo.heartbeat = options_.heartbeat;
    wo.run = options_.run;
    StartedProcess p;
    try {
      p = StartProcess(options_.worker_command, WorkerEnvironment(wo),
                       static_cast<bool>(options_.worker_output));
    } catch (const std::system_error& e) {
      Fatal(fmt::format("cannot start worker {}: {}", w.index, e.what()));
      return;
    }
    if (p.output_fd >= 0) output_.Add(p.output_fd);
    ++w.incarnation;
    w.pid = p.pid;
    w.exited = false;
    w.hello = w.peers_sent = w.ready = w.started = w.done = w.done_completed = false;
    w.last_heard = Clock::now();
    w.channel = std::make_unique<ControlChannel>(
        io_, p.control_fd,
        ControlChannel::Handlers{
            [this, &w](const ControlMessage& m) {
              w.last_heard = Clock::now();
              OnMessage(w, m);
            },
            [&w](uint32_t bytes) {
              spdlog::error("worker {} sent a control message of {} bytes; killing it", w.index,
                            bytes);
              ::kill(w.pid, SIGKILL);
            },
            [&w](const std::string& error) {
              spdlog::warn("dropped a malformed control message from worker {}: {}", w.index,
                           error);
            }});
    if (w.incarnation > 0) {
      spdlog::info("worker {} restarted (pid {}, tasks {}), restart {} of {}", w.index, p.pid,
                   fmt::join(w.tasks, " "), w.restarts, options_.max_restarts);
    }
    Publish();
  }

  // This process's environment for a worker: its flags added, any inherited ones replaced.
  static std::vector<std::string> WorkerEnvironment(const WorkerOptions& options) {
    const std::string prefix = std::string(kWorkerFlagsVariable) + "=";
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::string_view(*e).substr(0, prefix.size()) != prefix) env.emplace_back(*e);
    }
    env.push_back(WorkerFlagsEnvironmentEntry(options));
    return env;
  }

  void OnSigchld(const boost::system::error_code& ec) {
    if (ec) return;
    Reap();
    sigchld_.async_wait([this](const boost::system::error_code& e, int) { OnSigchld(e); });
  }

  void Reap() {
    for (Worker& w : workers_) {
      if (w.exited || w.pid == 0) continue;
      if (const std::optional<int> status = ReapIfExited(w.pid)) OnExit(w, *status);
    }
  }

  void OnExit(Worker& w, int status) {
    w.exited = true;
    w.channel.reset();
    w.counters.CarryOver();
    const bool expected = phase_ == Phase::kExiting || phase_ == Phase::kAborting;
    if (!expected && !w.hello && ExecFailed(status)) {
      // exec failed: trying again cannot help.
      Fatal(
          fmt::format("cannot start worker {}: {} could not be run (not found or not "
                      "executable)",
                      w.index, options_.worker_command.front()));
    } else if (!expected) {
      spdlog::error("worker {} (pid {}, tasks {}) died: {}", w.index, w.pid,
                    fmt::join(w.tasks, " "), ExitText(status));
      if (w.restarts >= options_.max_restarts) {
        Fatal(fmt::format("worker {} died {} times (last: {}); giving up", w.index, w.restarts + 1,
                          ExitText(status)));
      } else {
        ++w.restarts;
        ++restarts_;
        w.pid = 0;
        Spawn(w);
      }
    }
    Publish();
    MaybeEnd();
  }

  void KillAll() {
    for (Worker& w : workers_) {
      if (!w.exited && w.pid > 0) ::kill(w.pid, SIGKILL);
    }
  }

  void Send(Worker& w, const ControlMessage& m) {
    if (w.channel) w.channel->Send(m);
  }

  void Broadcast(ControlType type) {
    ControlMessage m;
    m.type = type;
    for (Worker& w : workers_) Send(w, m);
  }

  // --- the conversation (docs/multi-process.md) ------------------------------------------

  void OnMessage(Worker& w, const ControlMessage& m) {
    switch (m.type) {
      case ControlType::kHello:
        OnHello(w, m);
        return;
      case ControlType::kReady:
        w.ready = true;
        if (phase_ == Phase::kPreparing) {
          if (std::all_of(workers_.begin(), workers_.end(),
                          [](const Worker& x) { return x.ready; })) {
            phase_ = Phase::kRunning;
            for (Worker& x : workers_) StartWorker(x);
          }
        } else if (phase_ == Phase::kRunning || phase_ == Phase::kStopping) {
          StartWorker(w);
          if (phase_ == Phase::kStopping) Send(w, Message(ControlType::kStop));
        }
        return;
      case ControlType::kTaskFinished:
        finished_.insert(m.task);
        return;
      case ControlType::kHeartbeat:
        Update(w, m);
        return;
      case ControlType::kFatal:
        Fatal(m.text);
        return;
      case ControlType::kDone:
        Update(w, m);
        w.done = true;
        w.done_completed = m.completed;
        if (phase_ == Phase::kAborting) {
          MaybeExitAborting();
        } else {
          MaybeExit();
        }
        return;
      case ControlType::kPeers:
      case ControlType::kStart:
      case ControlType::kPeerRestarted:
      case ControlType::kStop:
      case ControlType::kAbort:
      case ControlType::kExit:
      case ControlType::kActivate:
      case ControlType::kDeactivate:
        break;
    }
    spdlog::warn("worker {} sent an unexpected control message (type {})", w.index,
                 static_cast<int>(m.type));
  }

  ControlMessage ActivationMessage() const {
    return Message(active_ ? ControlType::kActivate : ControlType::kDeactivate);
  }

  static ControlMessage Message(ControlType type) {
    ControlMessage m;
    m.type = type;
    return m;
  }

  void OnHello(Worker& w, const ControlMessage& m) {
    if (m.fingerprint != fingerprint_) {
      Fatal(
          fmt::format("worker {} loaded a different topology than the supervisor (fingerprint "
                      "{:016x}, expected {:016x}): its command must load the same file",
                      w.index, m.fingerprint, fingerprint_));
      return;
    }
    w.hello = true;
    w.endpoint = m.text;
    if (phase_ == Phase::kAborting || phase_ == Phase::kExiting) {
      Send(w, Message(ControlType::kAbort));
      return;
    }
    if (phase_ == Phase::kConnecting) {
      if (!std::all_of(workers_.begin(), workers_.end(), [](const Worker& x) { return x.hello; })) {
        return;
      }
      phase_ = Phase::kPreparing;
      for (Worker& x : workers_) SendPeers(x);
      return;
    }
    // A restarted worker: it learns who its peers are and what already finished; they learn
    // its new endpoint, give its tasks their credit back and send their end-of-stream again.
    SendPeers(w);
    ControlMessage restarted = Message(ControlType::kPeerRestarted);
    restarted.worker = w.index;
    restarted.text = w.endpoint;
    for (Worker& x : workers_) {
      if (&x == &w || !x.peers_sent) continue;
      Send(x, restarted);
      x.done = false;  // owes confirmations again
    }
  }

  void SendPeers(Worker& w) {
    ControlMessage m = Message(ControlType::kPeers);
    for (const Worker& x : workers_) m.endpoints.push_back(x.endpoint);
    m.finished.assign(finished_.begin(), finished_.end());
    m.incarnation = w.incarnation;
    Send(w, m);
    w.peers_sent = true;
  }

  void StartWorker(Worker& w) {
    if (w.started) return;
    Send(w, Message(ControlType::kStart));
    if (!active_) Send(w, ActivationMessage());
    w.started = true;
    ++starts_;
    // Counted in the same update as the workers' statuses: Start() returns once the count is
    // reached, and its caller then reads every worker as running.
    Publish();
  }

  void Update(Worker& w, const ControlMessage& m) {
    w.counters.Update(m);
    Publish();
  }

  // Running or stopping: once every worker is done (and none is being restarted), exit.
  void MaybeExit() {
    if (phase_ != Phase::kRunning && phase_ != Phase::kStopping) return;
    for (const Worker& w : workers_) {
      if (w.exited || !w.done) return;
    }
    phase_ = Phase::kExiting;
    Broadcast(ControlType::kExit);
    ArmKillTimer(kExitGrace);
  }

  void RequestStop() {
    switch (phase_) {
      case Phase::kConnecting:
      case Phase::kPreparing:
        Abort();
        return;
      case Phase::kRunning:
        phase_ = Phase::kStopping;
        Broadcast(ControlType::kStop);
        stop_timer_.expires_after(options_.run.stop_timeout);
        stop_timer_.async_wait([this](const boost::system::error_code& ec) {
          if (ec || phase_ != Phase::kStopping) return;
          spdlog::warn("topology '{}' did not drain within {} ms; cutting the run short",
                       spec_->name, options_.run.stop_timeout.count());
          Abort();
        });
        return;
      case Phase::kStopping:
      case Phase::kAborting:
      case Phase::kExiting:
        return;
    }
  }

  void Abort() {
    if (phase_ == Phase::kAborting || phase_ == Phase::kExiting) return;
    aborted_ = true;
    phase_ = Phase::kAborting;
    Broadcast(ControlType::kAbort);
    // Once every worker has reported done (or at the deadline: killed), all exit.
    ArmKillTimer(options_.run.stop_timeout);
    MaybeExitAborting();
  }

  // Aborting: once every live worker that said hello is done, exit (one that never said hello
  // leaves on the abort itself).
  void MaybeExitAborting() {
    if (phase_ != Phase::kAborting) return;
    for (const Worker& w : workers_) {
      if (!w.exited && !w.done && w.hello) return;
    }
    phase_ = Phase::kExiting;
    Broadcast(ControlType::kExit);
    ArmKillTimer(kExitGrace);
  }

  void Fatal(const std::string& message) {
    if (error_.empty()) error_ = message;
    spdlog::debug("run failed: {}", message);
    Abort();
  }

  void ArmKillTimer(std::chrono::milliseconds after) {
    kill_timer_.expires_after(after);
    kill_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      spdlog::warn("killing the workers that did not exit in time");
      KillAll();
    });
  }

  // Periodic: reaps (a SIGCHLD may have been merged), kills silent workers.
  void Tick() {
    tick_.expires_after(options_.heartbeat);
    tick_.async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      Reap();
      const auto now = Clock::now();
      for (Worker& w : workers_) {
        if (w.exited || phase_ == Phase::kExiting) continue;
        if (now - w.last_heard > options_.worker_timeout) {
          spdlog::error(
              "worker {} (pid {}) sent nothing for {} ms; killing it", w.index, w.pid,
              std::chrono::duration_cast<std::chrono::milliseconds>(now - w.last_heard).count());
          w.last_heard = now;  // once per timeout
          ::kill(w.pid, SIGKILL);
        }
      }
      if (!ended_) Tick();
    });
  }

  void MaybeEnd() {
    if (phase_ == Phase::kAborting) MaybeExitAborting();
    for (const Worker& w : workers_) {
      if (!w.exited) return;
    }
    if (phase_ != Phase::kExiting && phase_ != Phase::kAborting) return;
    sigchld_.cancel();
    tick_.cancel();
    stop_timer_.cancel();
    kill_timer_.cancel();
    io_.stop();
  }

  void Publish() {
    std::vector<TaskSnapshot> tasks;
    std::vector<WorkerStatus> statuses;
    for (const Worker& w : workers_) {
      for (int t : w.tasks) {
        tasks.push_back(
            SnapshotOf(w.counters.Of(t), layout_.ComponentOf(t), finished_.count(t) > 0));
      }
      statuses.push_back(WorkerStatus{w.index, w.exited ? 0 : w.pid, w.restarts,
                                      w.started && !w.exited, w.tasks,
                                      w.counters.dropped_frames()});
    }
    // The start count goes with the statuses: Start() returns once it is reached, and its
    // caller then reads every worker as running.
    status_.Publish(std::move(tasks), std::move(statuses), starts_);
  }

  void End() {
    Publish();
    RunSummary summary = Summarize(*spec_, layout_, Snapshot());
    summary.seconds = std::chrono::duration<double>(Clock::now() - started_at_).count();
    summary.error = error_;
    summary.workers = options_.workers;
    summary.restarts = restarts_;
    bool all_completed = true;
    for (const Worker& w : workers_) {
      summary.dropped_frames += w.counters.dropped_frames();
      all_completed = all_completed && w.done && w.done_completed;
    }
    summary.completed = !aborted_ && error_.empty() && all_completed;
    summary_ = summary;
    ended_ = true;
    status_.MarkEnded();
  }

  std::shared_ptr<const topology::TopologySpec> spec_;
  ProcessRunOptions options_;
  topology::TaskLayout layout_;
  std::vector<int> worker_of_;
  uint64_t fingerprint_;
  std::string run_dir_;
  bool active_ = true;          // the spouts' state the user asked for (SetActive)
  transport::CurveKeys curve_;  // tcp runs
  bool own_run_dir_ = false;
  Clock::time_point started_at_;

  // Owned by the supervisor thread.
  asio::io_context io_;
  OutputRelay output_;
  asio::signal_set sigchld_;
  asio::steady_timer tick_, stop_timer_, kill_timer_;
  std::deque<Worker> workers_;  // stable addresses (handlers hold references)
  Phase phase_ = Phase::kConnecting;
  std::set<int> finished_;
  std::string error_;
  bool aborted_ = false;
  int restarts_ = 0;
  int starts_ = 0;  // workers sent their start (a restarted one again)
  std::thread thread_;
  std::optional<RunSummary> summary_;  // written by the supervisor thread before it ends

  bool ended_ = false;

  // Shared with the callers' threads.
  PublishedStatus status_;
};

ProcessCluster::ProcessCluster(std::shared_ptr<const topology::TopologySpec> topology,
                               ProcessRunOptions options)
    : supervisor_(std::make_unique<Supervisor>(std::move(topology), std::move(options))) {}

ProcessCluster::~ProcessCluster() = default;

void ProcessCluster::Start() { supervisor_->Start(); }
void ProcessCluster::Stop() { supervisor_->Stop(); }
void ProcessCluster::SetActive(bool active) { supervisor_->SetActive(active); }
RunSummary ProcessCluster::Wait() { return supervisor_->Wait(); }
RunSummary ProcessCluster::Run() {
  Start();
  return Wait();
}
std::vector<TaskSnapshot> ProcessCluster::Snapshot() const { return supervisor_->Snapshot(); }
std::vector<WorkerStatus> ProcessCluster::Workers() const { return supervisor_->Workers(); }
const std::string& ProcessCluster::run_dir() const noexcept { return supervisor_->run_dir(); }
bool ProcessCluster::WaitFor(const std::function<bool(const ClusterStatus&)>& ready,
                             std::chrono::milliseconds timeout) const {
  return supervisor_->WaitFor(ready, timeout);
}

}  // namespace tempest::runtime

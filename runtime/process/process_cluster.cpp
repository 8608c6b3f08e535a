#include "runtime/process/process_cluster.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include "runtime/process/worker.h"
#include "runtime/process/worker_plan.h"
#include "transport/control_message.h"

namespace tempest::runtime {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
using Socket = asio::local::stream_protocol::socket;
using transport::ControlMessage;
using transport::ControlType;
using transport::TaskCounters;

namespace {

// How a child ended, in words.
std::string ExitText(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return fmt::format("killed by signal {} (SIG{})", sig, name != nullptr ? name : "?");
  }
  return fmt::format("ended with status {}", status);
}

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
    started_at_ = Clock::now();
    thread_ = std::thread([this] { Main(); });
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return status_.starts >= options_.workers || ended_; });
  }

  void Stop() {
    asio::post(io_, [this] { RequestStop(); });
  }

  RunSummary Wait() {
    // The summary is written by the supervisor thread just before it ends: join first.
    if (thread_.joinable()) thread_.join();
    if (!summary_) throw std::logic_error("ProcessCluster::Wait before Start");
    return *summary_;
  }

  std::vector<TaskSnapshot> Snapshot() const {
    std::lock_guard lock(mu_);
    return status_.tasks;
  }

  std::vector<WorkerStatus> Workers() const {
    std::lock_guard lock(mu_);
    return status_.workers;
  }

  bool WaitFor(const std::function<bool(const ClusterStatus&)>& ready,
               std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return ready(status_); });
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
    std::unique_ptr<Socket> socket;
    char header[transport::kControlHeaderBytes] = {};
    std::string body;
    std::deque<std::string> out;
    bool writing = false;
    bool hello = false, peers_sent = false, ready = false, started = false;
    bool done = false, done_completed = false, exited = true;
    std::string endpoint;
    Clock::time_point last_heard;
    std::map<int, TaskCounters> current, carried;  // by task: this incarnation, earlier ones
    uint64_t dropped_current = 0, dropped_carried = 0;
  };

  void Main() {
    sigchld_.async_wait([this](const boost::system::error_code& ec, int) { OnSigchld(ec); });
    for (Worker& w : workers_) Spawn(w);
    Tick();
    io_.run();
    DrainOutputs();
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
    wo.heartbeat = options_.heartbeat;
    wo.run = options_.run;
    std::vector<std::string> args = options_.worker_command;
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env = WorkerEnvironment(wo);
    std::vector<char*> envp;
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);

    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      Fatal(fmt::format("cannot create the control socket of worker {}: {}", w.index,
                        std::strerror(errno)));
      return;
    }
    int out[2] = {-1, -1};  // the worker's stderr, relayed line by line
    if (options_.worker_output && ::pipe2(out, O_CLOEXEC) != 0) {
      ::close(sv[0]);
      ::close(sv[1]);
      Fatal(fmt::format("cannot create the output pipe of worker {}: {}", w.index,
                        std::strerror(errno)));
      return;
    }
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
      for (int fd : {sv[0], sv[1], out[0], out[1]}) {
        if (fd >= 0) ::close(fd);
      }
      Fatal(fmt::format("cannot start worker {}: {}", w.index, std::strerror(errno)));
      return;
    }
    if (pid == 0) {
      // Only async-signal-safe calls until exec. The worker dies with this thread, and must not
      // have started after its supervisor was already gone.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);
      if (sv[1] == 3) {
        ::fcntl(3, F_SETFD, 0);
      } else {
        ::dup2(sv[1], 3);  // the copy does not have FD_CLOEXEC
      }
      if (out[1] >= 0) ::dup2(out[1], STDERR_FILENO);
      ::execvpe(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(sv[1]);
    if (out[1] >= 0) {
      ::close(out[1]);
      RelayOutput(w.index, out[0]);
    }
    ++w.incarnation;
    w.pid = pid;
    w.exited = false;
    w.hello = w.peers_sent = w.ready = w.started = w.done = w.done_completed = false;
    w.out.clear();
    w.writing = false;
    w.last_heard = Clock::now();
    w.socket = std::make_unique<Socket>(io_);
    boost::system::error_code ec;
    w.socket->assign(asio::local::stream_protocol(), sv[0], ec);
    if (w.incarnation > 0) {
      spdlog::info("worker {} restarted (pid {}, tasks {}), restart {} of {}", w.index, pid,
                   fmt::join(w.tasks, " "), w.restarts, options_.max_restarts);
    }
    ReadHeader(w, w.incarnation);
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

  // --- worker output ---------------------------------------------------------------------

  // One incarnation's stderr: read until the worker (and whatever inherited it) closes it.
  struct OutputPipe {
    explicit OutputPipe(asio::io_context& io, int fd) : stream(io, fd) {}
    asio::posix::stream_descriptor stream;
    std::array<char, 4096> buffer{};
    std::string partial;
  };

  void RelayOutput(int worker, int fd) {
    auto pipe = std::make_shared<OutputPipe>(io_, fd);
    outputs_.push_back(pipe);
    ReadOutput(worker, pipe);
  }

  void ReadOutput(int worker, const std::shared_ptr<OutputPipe>& pipe) {
    pipe->stream.async_read_some(
        asio::buffer(pipe->buffer),
        [this, worker, pipe](const boost::system::error_code& ec, std::size_t n) {
          HandOver(*pipe, std::string_view(pipe->buffer.data(), n), ec.failed());
          if (!ec) ReadOutput(worker, pipe);
        });
  }

  // Hands every whole line of `data` to worker_output; at the end, the unterminated rest too.
  void HandOver(OutputPipe& pipe, std::string_view data, bool at_end) {
    pipe.partial.append(data);
    std::size_t start = 0;
    for (std::size_t nl; (nl = pipe.partial.find('\n', start)) != std::string::npos;
         start = nl + 1) {
      options_.worker_output(std::string_view(pipe.partial).substr(start, nl - start));
    }
    pipe.partial.erase(0, start);
    if (at_end && !pipe.partial.empty()) {
      options_.worker_output(pipe.partial);
      pipe.partial.clear();
    }
  }

  // After the event loop: what the workers wrote last and the loop had no time to read.
  void DrainOutputs() {
    for (const std::shared_ptr<OutputPipe>& pipe : outputs_) {
      if (!pipe->stream.is_open()) continue;
      boost::system::error_code ec;
      pipe->stream.non_blocking(true, ec);
      while (!ec) {
        const std::size_t n = pipe->stream.read_some(asio::buffer(pipe->buffer), ec);
        HandOver(*pipe, std::string_view(pipe->buffer.data(), n), ec.failed());
      }
    }
    outputs_.clear();
  }

  void OnSigchld(const boost::system::error_code& ec) {
    if (ec) return;
    Reap();
    sigchld_.async_wait([this](const boost::system::error_code& e, int) { OnSigchld(e); });
  }

  void Reap() {
    for (Worker& w : workers_) {
      if (w.exited || w.pid == 0) continue;
      int status = 0;
      const pid_t r = ::waitpid(w.pid, &status, WNOHANG);
      if (r == w.pid) OnExit(w, status);
    }
  }

  void OnExit(Worker& w, int status) {
    w.exited = true;
    w.socket.reset();
    for (const auto& [task, c] : w.current) {
      Add(w.carried[task], c);
      w.carried[task].pending = 0;  // the dead incarnation's pending tuples will be replayed
    }
    w.current.clear();
    w.dropped_carried += w.dropped_current;
    w.dropped_current = 0;
    const bool expected = phase_ == Phase::kExiting || phase_ == Phase::kAborting;
    if (!expected && !w.hello && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
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

  // --- control socket --------------------------------------------------------------------

  void ReadHeader(Worker& w, int incarnation) {
    asio::async_read(*w.socket, asio::buffer(w.header, sizeof w.header),
                     [this, &w, incarnation](const boost::system::error_code& ec, std::size_t) {
                       if (ec || w.incarnation != incarnation || !w.socket) return;
                       const uint32_t n = transport::ControlBodyLength(w.header);
                       if (n > transport::kMaxControlBytes) {
                         spdlog::error("worker {} sent a control message of {} bytes; killing it",
                                       w.index, n);
                         ::kill(w.pid, SIGKILL);
                         return;
                       }
                       w.body.resize(n);
                       ReadBody(w, incarnation);
                     });
  }

  void ReadBody(Worker& w, int incarnation) {
    asio::async_read(*w.socket, asio::buffer(w.body),
                     [this, &w, incarnation](const boost::system::error_code& ec, std::size_t) {
                       if (ec || w.incarnation != incarnation || !w.socket) return;
                       ControlMessage m;
                       std::string error;
                       if (transport::DecodeControlMessage(w.body, m, &error)) {
                         w.last_heard = Clock::now();
                         OnMessage(w, m);
                       } else {
                         spdlog::warn("dropped a malformed control message from worker {}: {}",
                                      w.index, error);
                       }
                       if (w.incarnation == incarnation && w.socket) ReadHeader(w, incarnation);
                     });
  }

  void Send(Worker& w, const ControlMessage& m) {
    if (!w.socket) return;
    std::string bytes;
    transport::AppendControlMessage(m, bytes);
    w.out.push_back(std::move(bytes));
    if (!w.writing) WriteNext(w, w.incarnation);
  }

  void WriteNext(Worker& w, int incarnation) {
    if (w.out.empty() || !w.socket) {
      w.writing = false;
      return;
    }
    w.writing = true;
    asio::async_write(*w.socket, asio::buffer(w.out.front()),
                      [this, &w, incarnation](const boost::system::error_code& ec, std::size_t) {
                        if (w.incarnation != incarnation) return;
                        if (ec) {
                          w.writing = false;
                          return;  // the worker is gone; its exit is handled by Reap
                        }
                        w.out.pop_front();
                        WriteNext(w, incarnation);
                      });
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
        break;
    }
    spdlog::warn("worker {} sent an unexpected control message (type {})", w.index,
                 static_cast<int>(m.type));
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
    w.started = true;
    ++starts_;
    // Counted in the same update as the workers' statuses: Start() returns once the count is
    // reached, and its caller then reads every worker as running.
    Publish();
  }

  void Update(Worker& w, const ControlMessage& m) {
    for (const TaskCounters& c : m.tasks) w.current[c.task] = c;
    w.dropped_current = m.dropped_frames;
    Publish();
  }

  static void Add(TaskCounters& into, const TaskCounters& c) {
    into.task = c.task;
    into.emitted += c.emitted;
    into.executed += c.executed;
    into.acked += c.acked;
    into.failed += c.failed;
    into.errors += c.errors;
    into.dropped += c.dropped;
    into.queue_high_water = std::max(into.queue_high_water, c.queue_high_water);
    into.blocked_pushes += c.blocked_pushes;
    into.timed_out += c.timed_out;
    into.replayed += c.replayed;
    into.pending += c.pending;
    // Gauges are levels, not counts: a later incarnation's value replaces an earlier one's
    // (a gauge it has not reported yet keeps the dead incarnation's last value).
    for (const auto& [name, value] : c.gauges) {
      auto it = std::find_if(into.gauges.begin(), into.gauges.end(),
                             [&](const auto& g) { return g.first == name; });
      if (it == into.gauges.end()) {
        into.gauges.emplace_back(name, value);
      } else {
        it->second = value;
      }
    }
    std::map<uint64_t, uint64_t> merged;
    for (std::size_t i = 0; i + 1 < into.latency.size(); i += 2) {
      merged[into.latency[i]] += into.latency[i + 1];
    }
    for (std::size_t i = 0; i + 1 < c.latency.size(); i += 2)
      merged[c.latency[i]] += c.latency[i + 1];
    into.latency.clear();
    for (const auto& [bucket, count] : merged) {
      into.latency.push_back(bucket);
      into.latency.push_back(count);
    }
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
        TaskCounters c;
        if (auto it = w.carried.find(t); it != w.carried.end()) Add(c, it->second);
        if (auto it = w.current.find(t); it != w.current.end()) Add(c, it->second);
        TaskSnapshot s;
        s.task = t;
        s.component = layout_.ComponentOf(t);
        s.emitted = c.emitted;
        s.executed = c.executed;
        s.acked = c.acked;
        s.failed = c.failed;
        s.errors = c.errors;
        s.dropped = c.dropped;
        s.timed_out = c.timed_out;
        s.replayed = c.replayed;
        s.pending = c.pending;
        for (std::size_t i = 0; i + 1 < c.latency.size(); i += 2) {
          if (c.latency[i] < s.complete_latency.counts.size()) {
            s.complete_latency.counts[c.latency[i]] += c.latency[i + 1];
          }
        }
        s.queue_high_water = c.queue_high_water;
        s.blocked_pushes = c.blocked_pushes;
        s.gauges = std::move(c.gauges);
        s.finished = finished_.count(t) > 0;
        tasks.push_back(std::move(s));
      }
      statuses.push_back(WorkerStatus{w.index, w.exited ? 0 : w.pid, w.restarts,
                                      w.started && !w.exited, w.tasks,
                                      w.dropped_carried + w.dropped_current});
    }
    std::sort(tasks.begin(), tasks.end(),
              [](const TaskSnapshot& a, const TaskSnapshot& b) { return a.task < b.task; });
    {
      std::lock_guard lock(mu_);
      status_.tasks = std::move(tasks);
      status_.workers = std::move(statuses);
      status_.starts = starts_;
    }
    cv_.notify_all();
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
      summary.dropped_frames += w.dropped_carried + w.dropped_current;
      all_completed = all_completed && w.done && w.done_completed;
    }
    summary.completed = !aborted_ && error_.empty() && all_completed;
    summary_ = summary;
    {
      std::lock_guard lock(mu_);
      ended_ = true;
      status_.ended = true;
    }
    cv_.notify_all();
  }

  std::shared_ptr<const topology::TopologySpec> spec_;
  ProcessRunOptions options_;
  topology::TaskLayout layout_;
  std::vector<int> worker_of_;
  uint64_t fingerprint_;
  std::string run_dir_;
  bool own_run_dir_ = false;
  Clock::time_point started_at_;

  // Owned by the supervisor thread.
  asio::io_context io_;
  std::vector<std::shared_ptr<OutputPipe>> outputs_;
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

  // Shared with the callers' threads.
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool ended_ = false;
  ClusterStatus status_;
};

ProcessCluster::ProcessCluster(std::shared_ptr<const topology::TopologySpec> topology,
                               ProcessRunOptions options)
    : supervisor_(std::make_unique<Supervisor>(std::move(topology), std::move(options))) {}

ProcessCluster::~ProcessCluster() = default;

void ProcessCluster::Start() { supervisor_->Start(); }
void ProcessCluster::Stop() { supervisor_->Stop(); }
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

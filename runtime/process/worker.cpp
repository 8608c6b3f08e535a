#include "runtime/process/worker.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <malloc.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string_view>

#include "runtime/process/remote_link.h"
#include "runtime/process/worker_plan.h"
#include "runtime/routing/router.h"
#include "runtime/task_host.h"
#include "transport/control_socket.h"

namespace tempest::runtime {
namespace {

using Clock = std::chrono::steady_clock;
using transport::ControlMessage;
using transport::ControlType;

// Wakes the worker's main thread from any thread (a task finished, a peer said hello, ...).
class Wakeup {
 public:
  Wakeup() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
  ~Wakeup() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const noexcept { return fd_; }
  void Signal() const noexcept {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(fd_, &one, sizeof one);
  }
  void Drain() const noexcept {
    uint64_t value = 0;
    [[maybe_unused]] const ssize_t n = ::read(fd_, &value, sizeof value);
  }

 private:
  int fd_;
};

// A histogram's non-empty buckets as (bucket, count) pairs.
std::vector<uint64_t> Pairs(const LatencyCounts& latency) {
  std::vector<uint64_t> pairs;
  for (std::size_t b = 0; b < latency.counts.size(); ++b) {
    if (latency.counts[b] == 0) continue;
    pairs.push_back(b);
    pairs.push_back(latency.counts[b]);
  }
  return pairs;
}

std::vector<transport::TaskCounters> Counters(const std::vector<TaskSnapshot>& tasks) {
  std::vector<transport::TaskCounters> out;
  out.reserve(tasks.size());
  for (const TaskSnapshot& t : tasks) {
    transport::TaskCounters c;
    c.task = t.task;
    c.emitted = t.emitted;
    c.executed = t.executed;
    c.acked = t.acked;
    c.failed = t.failed;
    c.errors = t.errors;
    c.dropped = t.dropped;
    c.dropped_by_cause = t.dropped_by_cause;
    c.queue_high_water = t.queue_high_water;
    c.blocked_pushes = t.blocked_pushes;
    c.timed_out = t.timed_out;
    c.replayed = t.replayed;
    c.pending = t.pending;
    c.gauges = t.gauges;
    c.last_error = t.last_error;
    c.last_error_ms = t.last_error_ms;
    c.latency = Pairs(t.complete_latency);
    c.execute_latency = Pairs(t.execute_latency);
    c.queue_size = t.queue_size;
    c.queue_capacity = t.queue_capacity;
    c.user_metrics = t.user_metrics;
    out.push_back(std::move(c));
  }
  return out;
}

class Worker {
 public:
  Worker(std::shared_ptr<const topology::TopologySpec> spec, const WorkerOptions& options)
      : spec_(std::move(spec)),
        options_(options),
        control_(options.control_fd),
        layout_(std::make_shared<const topology::TaskLayout>(
            *spec_, topology::AckerTasks(*spec_, options.workers))),
        worker_of_(AssignTasks(*layout_, options.workers)),
        streams_(spec_) {}

  int Run() {
    try {
      transport::TransportOptions t;
      t.self = options_.index;
      t.endpoint = options_.endpoint;
      t.run_dir = options_.run_dir;
      t.curve = options_.curve;
      RemoteLink::Options lo{options_.index,
                             options_.workers,
                             worker_of_,
                             QueueCapacity(*spec_, options_.run),
                             [this] { wake_.Signal(); },
                             {}};
      // Bolts and ackers read their own socket; a spout polls its queue between NextTuple
      // calls (TaskQueue::MaybeNonEmpty), so its few remote frames keep to the worker socket.
      for (int task : TasksOfWorker(worker_of_, options_.index)) {
        if (options_.workers == 1) break;
        if (layout_->IsAcker(task)) {
          lo.inbox_tasks.push_back(task);
          continue;
        }
        const topology::ComponentSpec* c = spec_->Find(layout_->ComponentOf(task));
        if (c != nullptr && c->kind == topology::ComponentKind::kBolt) {
          lo.inbox_tasks.push_back(task);
        }
      }
      link_ = std::make_unique<RemoteLink>(transport::MakeZmqTransport(t), std::move(lo));
    } catch (const std::exception& e) {
      return FailEarly(fmt::format("worker {}: {}", options_.index, e.what()));
    }
    ControlMessage hello;
    hello.type = ControlType::kHello;
    hello.worker = options_.index;
    hello.pid = ::getpid();
    hello.text = link_->endpoint();
    hello.fingerprint = TopologyFingerprint(*spec_);
    if (!control_.Send(hello)) return Gone();

    ControlMessage peers;
    for (;;) {
      const int r = ReadControl(peers);
      if (r < 0) return Gone();
      if (r == 0) continue;
      if (peers.type == ControlType::kPeers) break;
      if (peers.type == ControlType::kExit || peers.type == ControlType::kAbort) return 0;
    }
    Setup(peers);
    return Loop();
  }

 private:
  // Builds the tasks and connects; a failure is fatal for the run (reported by Loop).
  void Setup(const ControlMessage& peers) {
    TaskHost::Options o;
    o.run = options_.run;
    o.tasks = TasksOfWorker(worker_of_, options_.index);
    for (int t : peers.finished) {
      if (link_->IsLocal(t)) o.skip.push_back(t);
    }
    skipped_ = o.skip;
    o.link = link_.get();
    o.streams = &streams_;
    o.restarted = peers.incarnation > 0;
    o.open_gate_when_ready = false;
    o.notify = [this] { wake_.Signal(); };
    host_ = std::make_unique<TaskHost>(spec_, layout_, std::move(o));
    link_->StartReceiving(host_->queues());
    try {
      link_->Connect(peers.endpoints);
      host_->Start();
    } catch (const std::exception& e) {
      setup_failed_ = true;  // no task thread runs
      host_->control().Fatal(fmt::format("worker {}: {}", options_.index, e.what()));
    }
  }

  int Loop() {
    auto next_heartbeat = Clock::now();
    int exit_code = 0;
    for (bool running = true; running;) {
      Report();
      if (Clock::now() >= next_heartbeat) {
        Heartbeat();
        next_heartbeat = Clock::now() + options_.heartbeat;
      }
      pollfd fds[2] = {{control_.fd(), POLLIN, 0}, {wake_.fd(), POLLIN, 0}};
      const auto wait =
          std::chrono::duration_cast<std::chrono::milliseconds>(next_heartbeat - Clock::now());
      const int n = ::poll(fds, 2, static_cast<int>(std::max<int64_t>(0, wait.count()) + 1));
      if (n <= 0) continue;
      if (fds[1].revents != 0) wake_.Drain();
      if (fds[0].revents == 0) continue;
      ControlMessage m;
      const int r = ReadControl(m);
      if (r < 0) {
        spdlog::error("worker {}: the supervisor is gone; stopping at once", options_.index);
        exit_code = 1;
        break;
      }
      if (r > 0) running = Handle(m);
    }
    Shutdown();
    return exit_code;
  }

  // Acts on one supervisor message; false on exit.
  bool Handle(const ControlMessage& m) {
    RunControl& control = host_->control();
    switch (m.type) {
      case ControlType::kStart:
        StartSkipped();
        started_ = true;
        control.OpenGate();
        return true;
      case ControlType::kStop:
        if (started_) {
          control.RequestStop();
        } else {
          control.Abort();
        }
        return true;
      case ControlType::kAbort:
        control.Abort();
        return true;
      case ControlType::kActivate:
      case ControlType::kDeactivate:
        control.SetActive(m.type == ControlType::kActivate);
        return true;
      case ControlType::kPeerRestarted:
        link_->PeerRestarted(m.worker, m.text);
        done_sent_ = false;  // its confirmations are owed again
        return true;
      case ControlType::kExit:
        return false;
      case ControlType::kHello:
      case ControlType::kReady:
      case ControlType::kTaskFinished:
      case ControlType::kHeartbeat:
      case ControlType::kFatal:
      case ControlType::kDone:
      case ControlType::kPeers:
        spdlog::warn("worker {}: ignored an unexpected control message (type {})", options_.index,
                     static_cast<int>(m.type));
        return true;
    }
    return true;
  }

  // Tasks that finished before this worker was restarted: their downstream tasks (and the
  // ackers) get their end-of-stream and close again (once per upstream task: duplicates are ignored
  // there).
  void StartSkipped() {
    for (int s : skipped_) {
      if (layout_->IsAcker(s)) continue;  // an acker sends no end markers
      std::vector<int> to = DownstreamTasks(*spec_, *layout_, s);
      const std::vector<int>& ackers = layout_->AckerTaskIds();
      to.insert(to.end(), ackers.begin(), ackers.end());
      for (int d : to) {
        for (Envelope::Kind kind : {Envelope::Kind::kEndOfStream, Envelope::Kind::kClose}) {
          if (link_->IsLocal(d)) {
            if (TaskQueue* q = host_->queues()[d]) q->Push(Envelope{kind, s, {}, {}, 0, {}});
          } else if (kind == Envelope::Kind::kClose) {
            link_->SendClose(s, d);
          } else {
            link_->SendEndOfStream(s, d);
          }
        }
      }
    }
  }

  // Tells the supervisor whatever changed: fatal error, finished tasks, ready, done.
  void Report() {
    RunControl& control = host_->control();
    const std::string fatal = control.fatal_error();
    if (!fatal.empty() && !fatal_sent_) {
      ControlMessage m;
      m.type = ControlType::kFatal;
      m.worker = options_.index;
      m.text = fatal;
      control_.Send(m);
      fatal_sent_ = true;
    }
    for (const TaskSnapshot& t : host_->Snapshot()) {
      if (!t.finished || !reported_finished_.insert(t.task).second) continue;
      ControlMessage m;
      m.type = ControlType::kTaskFinished;
      m.worker = options_.index;
      m.task = t.task;
      control_.Send(m);
    }
    if (!ready_sent_ && control.all_arrived() && link_->HeardFromAllPeers()) {
      ControlMessage m;
      m.type = ControlType::kReady;
      m.worker = options_.index;
      control_.Send(m);
      ready_sent_ = true;
    }
    const bool drained = setup_failed_ || (control.unfinished() == 0 &&
                                           (control.aborted() || link_->AllEndOfStreamConfirmed()));
    if (!done_sent_ && (started_ || control.aborted()) && drained) {
      ControlMessage m = Counters(ControlType::kDone);
      m.completed = !control.aborted();
      control_.Send(m);
      done_sent_ = true;
    }
  }

  void Heartbeat() { control_.Send(Counters(ControlType::kHeartbeat)); }

  ControlMessage Counters(ControlType type) const {
    ControlMessage m;
    m.type = type;
    m.worker = options_.index;
    if (host_) m.tasks = runtime::Counters(host_->Snapshot());
    m.dropped_frames = link_ ? link_->dropped_frames() : 0;
    return m;
  }

  // 1: a message; 0: a malformed one (logged); -1: the supervisor is gone.
  int ReadControl(ControlMessage& m) {
    std::string error;
    switch (control_.Read(m, &error)) {
      case transport::ControlSocket::ReadResult::kMessage:
        return 1;
      case transport::ControlSocket::ReadResult::kMalformed:
        spdlog::warn("worker {}: dropped a malformed control message: {}", options_.index, error);
        return 0;
      case transport::ControlSocket::ReadResult::kClosed:
        return -1;
    }
    return -1;
  }

  int FailEarly(const std::string& message) {
    ControlMessage m;
    m.type = ControlType::kFatal;
    m.worker = options_.index;
    m.text = message;
    if (!control_.Send(m)) return Gone();
    // Wait to be told to exit, so the supervisor sees the reason before the exit status.
    for (ControlMessage in;;) {
      const int r = ReadControl(in);
      if (r < 0) return 1;
      if (r > 0 && in.type == ControlType::kExit) return 1;
    }
  }

  int Gone() {
    spdlog::error("worker {}: the supervisor is gone; stopping at once", options_.index);
    Shutdown();
    return 1;
  }

  // Task threads first (they send through the link), then the link (its receiver feeds the
  // tasks' queues), then the queues.
  void Shutdown() {
    if (host_) {
      host_->control().Abort();
      host_->Join();
    }
    link_.reset();
    host_.reset();
  }

  std::shared_ptr<const topology::TopologySpec> spec_;
  WorkerOptions options_;
  transport::ControlSocket control_;
  Wakeup wake_;
  std::shared_ptr<const topology::TaskLayout> layout_;
  std::vector<int> worker_of_;
  transport::StreamTable streams_;
  std::unique_ptr<RemoteLink> link_;
  std::unique_ptr<TaskHost> host_;
  std::vector<int> skipped_;
  std::set<int> reported_finished_;
  bool started_ = false, ready_sent_ = false, done_sent_ = false, fatal_sent_ = false;
  bool setup_failed_ = false;
};

}  // namespace

std::vector<std::string> WorkerFlags(const WorkerOptions& o) {
  std::vector<std::string> flags = {
      "--worker-index",   std::to_string(o.index),
      "--workers",        std::to_string(o.workers),
      "--control-fd",     std::to_string(o.control_fd),
      "--run-dir",        o.run_dir,
      "--endpoint",       o.endpoint == transport::EndpointKind::kTcp ? "tcp" : "ipc",
      "--heartbeat-ms",   std::to_string(o.heartbeat.count()),
      "--queue-capacity", std::to_string(o.run.queue_capacity),
      "--batch-size",     std::to_string(o.run.batch_size),
      "--frame-bytes",    std::to_string(o.run.frame_bytes),
      "--track-trees",    o.run.spouts_track_trees ? "1" : "0"};
  if (o.curve.enabled()) {
    flags.insert(flags.end(),
                 {"--curve-server-public", o.curve.server_public, "--curve-server-secret",
                  o.curve.server_secret, "--curve-client-public", o.curve.client_public,
                  "--curve-client-secret", o.curve.client_secret});
  }
  return flags;
}

namespace {

// A CURVE key flag's value: 40 characters of Z85. The key itself is never quoted back.
const std::string& CurveKey(const std::string& flag, const std::string& value) {
  if (value.size() != 40) {
    throw std::invalid_argument(
        fmt::format("worker flag {}: expected a 40-character Z85 key", flag));
  }
  return value;
}

}  // namespace

WorkerOptions ParseWorkerFlags(const std::vector<std::string>& flags) {
  WorkerOptions o;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < flags.size(); i += 2) {
    const std::string& flag = flags[i];
    if (i + 1 >= flags.size()) {
      throw std::invalid_argument(fmt::format("worker flag {} has no value", flag));
    }
    const std::string& value = flags[i + 1];
    const auto number = [&](int64_t minimum) {
      std::size_t used = 0;
      int64_t v = 0;
      try {
        v = std::stoll(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != value.size() || v < minimum) {
        throw std::invalid_argument(fmt::format(
            "worker flag {}: expected an integer >= {}, found \"{}\"", flag, minimum, value));
      }
      return v;
    };
    if (flag == "--worker-index") {
      o.index = static_cast<int>(number(0));
    } else if (flag == "--workers") {
      o.workers = static_cast<int>(number(1));
    } else if (flag == "--control-fd") {
      o.control_fd = static_cast<int>(number(0));
    } else if (flag == "--run-dir") {
      o.run_dir = value;
    } else if (flag == "--endpoint") {
      if (value != "ipc" && value != "tcp") {
        throw std::invalid_argument(
            fmt::format("worker flag --endpoint: expected ipc or tcp, found \"{}\"", value));
      }
      o.endpoint = value == "tcp" ? transport::EndpointKind::kTcp : transport::EndpointKind::kIpc;
    } else if (flag == "--curve-server-public") {
      o.curve.server_public = CurveKey(flag, value);
    } else if (flag == "--curve-server-secret") {
      o.curve.server_secret = CurveKey(flag, value);
    } else if (flag == "--curve-client-public") {
      o.curve.client_public = CurveKey(flag, value);
    } else if (flag == "--curve-client-secret") {
      o.curve.client_secret = CurveKey(flag, value);
    } else if (flag == "--heartbeat-ms") {
      o.heartbeat = std::chrono::milliseconds(number(1));
    } else if (flag == "--queue-capacity") {
      o.run.queue_capacity = static_cast<std::size_t>(number(1));
    } else if (flag == "--batch-size") {
      o.run.batch_size = static_cast<std::size_t>(number(1));
    } else if (flag == "--frame-bytes") {
      o.run.frame_bytes = static_cast<std::size_t>(number(1));
    } else if (flag == "--track-trees") {
      o.run.spouts_track_trees = number(0) != 0;
    } else {
      throw std::invalid_argument(fmt::format("unknown worker flag {}", flag));
    }
    seen.insert(flag);
  }
  for (const char* required : {"--worker-index", "--workers", "--control-fd", "--run-dir"}) {
    if (seen.count(required) == 0) {
      throw std::invalid_argument(fmt::format("worker flag {} is missing", required));
    }
  }
  if (o.index >= o.workers) {
    throw std::invalid_argument(
        fmt::format("worker flag --worker-index {} is not below --workers {}", o.index, o.workers));
  }
  const transport::CurveKeys& k = o.curve;
  const int keys = !k.server_public.empty() + !k.server_secret.empty() + !k.client_public.empty() +
                   !k.client_secret.empty();
  if (keys != 0 && keys != 4) {
    throw std::invalid_argument("worker flags --curve-*: all four CURVE keys or none");
  }
  if (o.endpoint == transport::EndpointKind::kTcp && keys == 0) {
    throw std::invalid_argument("a tcp worker needs the run's CURVE keys (worker flags --curve-*)");
  }
  return o;
}

std::string WorkerFlagsEnvironmentEntry(const WorkerOptions& options) {
  return fmt::format("{}={}", kWorkerFlagsVariable, fmt::join(WorkerFlags(options), "\n"));
}

std::optional<WorkerOptions> WorkerOptionsFromEnvironment() {
  const char* value = std::getenv(kWorkerFlagsVariable);
  if (value == nullptr) return std::nullopt;
  std::vector<std::string> flags;
  std::string_view rest(value);
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    flags.emplace_back(rest.substr(0, end));
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  ::unsetenv(kWorkerFlagsVariable);
  return ParseWorkerFlags(flags);
}

namespace {

// Frames (up to frame_bytes each, 64 KiB by default) are allocated on one thread and freed on
// another: ZeroMQ's I/O thread receives into a new buffer that a task frees, and a task's sent
// bytes are freed by the I/O thread. glibc then keeps trimming the arenas' tops (its dynamic trim
// threshold starts at 128 KiB) and every new frame faults its pages back in: two-worker runs
// took 3-5x the page faults and ran 20-60% slower than with these fixed thresholds.
void TuneAllocator() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  mallopt(M_TRIM_THRESHOLD, 4 << 20);
#endif
}

}  // namespace

int RunWorker(std::shared_ptr<const topology::TopologySpec> spec, const WorkerOptions& options) {
  TuneAllocator();
  try {
    return Worker(std::move(spec), options).Run();
  } catch (const std::exception& e) {
    spdlog::error("worker {}: {}", options.index, e.what());
    return 1;
  }
}

}  // namespace tempest::runtime

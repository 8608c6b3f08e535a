#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tempest::transport {

// How workers reach each other.
enum class EndpointKind {
  kIpc,  // ipc://<run_dir>/worker-<i>.sock (default: one machine, no ports)
  kTcp,  // tcp://127.0.0.1:<ephemeral port>
};

// The CurveZMQ keys of a run (Z85 text, 40 characters each). With them every receiving socket is
// a CURVE server holding the server pair and every sending socket a CURVE client holding the
// client pair: traffic is encrypted, a peer that does not know the server's public key cannot
// complete the handshake, and one whose client key is not the run's is refused (ZAP, RFC 27).
// The supervisor makes them per run and hands them to its workers in their environment, never
// on a command line.
struct CurveKeys {
  std::string server_public, server_secret, client_public, client_secret;
  bool enabled() const noexcept { return !server_secret.empty(); }
};
// Two fresh key pairs. Throws std::runtime_error if libzmq was built without CURVE.
CurveKeys MakeCurveKeys();

struct TransportOptions {
  int self = 0;  // this worker's index, 0-based
  EndpointKind endpoint = EndpointKind::kIpc;
  std::string run_dir;  // the run's private folder (ipc sockets live here)
  CurveKeys curve;      // empty: no CURVE (ipc, whose folder is private, 0700)
  // ZeroMQ high-water marks, in messages. Credit-based flow control (runtime/process/remote_link.h)
  // keeps the traffic below them; they are the second line of defence, never a drop: PUSH
  // blocks at its HWM.
  int send_hwm = 100'000;
  int receive_hwm = 100'000;
};

// A task's own receiving socket (a PULL bound for that task alone): frames sent to it skip the
// worker's receiving thread, one thread hand-off less per crossing. Used by one thread at a
// time (its task's); destroyed before the Transport that opened it.
class TaskInbox {
 public:
  virtual ~TaskInbox() = default;
  virtual const std::string& endpoint() const noexcept = 0;
  // The next queued message, if any; never blocks.
  virtual bool TryReceive(std::string& out) = 0;
  // Blocks until a message is queued, `wake_fd` is readable, or `timeout_ms` has passed (-1:
  // no limit). Returns at once if a message is already queued.
  virtual void Wait(int wake_fd, int timeout_ms) = 0;
};

// One worker's share of the data plane: a PULL socket every peer sends to (bound at creation)
// and one PUSH socket per peer worker, so there is exactly one channel per ordered worker pair
// and ZeroMQ keeps each FIFO; optionally, tasks of this worker have inboxes of their own and
// peers a PUSH socket per such task (one channel per worker and task). Messages are opaque bytes
// (frames of transport/frame.h). Send and Reconnect may be called from any thread (each peer's
// socket has its own lock); Receive from one thread only.
class Transport {
 public:
  virtual ~Transport() = default;

  // Where peers connect to reach this worker, e.g. "ipc:///run/user/0/tempest-ab12/worker-1.sock".
  virtual const std::string& endpoint() const noexcept = 0;
  // Connects one PUSH socket per peer; endpoints[i] is worker i's (this worker's own is skipped).
  virtual void Connect(const std::vector<std::string>& endpoints) = 0;
  // Replaces the socket to a restarted peer: messages queued for the old one are discarded.
  virtual void Reconnect(int peer, const std::string& endpoint) = 0;
  // Queues one message for `peer`. Blocks only at the high-water mark. False once closed.
  virtual bool Send(int peer, std::string_view bytes) = 0;
  // Waits up to `timeout` for the next message from any peer. False if none arrived.
  virtual bool Receive(std::string& out, std::chrono::milliseconds timeout) = 0;
  // Binds a socket for local task `task` (ipc: worker-<self>-task-<task>.sock next to the
  // worker's; tcp: another ephemeral port). Throws std::runtime_error naming the endpoint.
  virtual std::unique_ptr<TaskInbox> OpenTaskInbox(int task) = 0;
  // Connects a PUSH socket to remote task `task`'s inbox; again for the same task, replaces it
  // (messages queued for the old one are discarded). The first call for each task must come
  // before any Send or SendToTask.
  virtual void ConnectTask(int task, const std::string& endpoint) = 0;
  // Queues one message for remote task `task`'s inbox (ConnectTask first). Blocks only at the
  // high-water mark. False once closed.
  virtual bool SendToTask(int task, std::string_view bytes) = 0;
  // Messages sent so far (every thread's, task inboxes' included) and received on the worker
  // socket (task inboxes are read by their tasks, which count what they take).
  virtual uint64_t sent() const noexcept = 0;
  virtual uint64_t received() const noexcept = 0;
};

// Binds the PULL socket (ipc: in options.run_dir; tcp: an ephemeral port on 127.0.0.1). Throws
// std::runtime_error naming the endpoint if binding fails.
std::unique_ptr<Transport> MakeZmqTransport(const TransportOptions& options);

// Creates a private run folder (mode 0700) under $XDG_RUNTIME_DIR, else $TMPDIR, else /tmp, named
// tempest-<name>-<pid>-XXXXXX, after removing this user's run folders there whose supervisor
// is gone (one killed with kill -9 could not remove its own). Throws std::runtime_error with
// the reason.
std::string MakeRunDir(std::string_view name);

// Removes the run folders under `base` that this user owns and whose supervisor process (the
// <pid> of their name) no longer exists; returns how many. Never throws.
int RemoveOrphanedRunDirs(const std::string& base) noexcept;

}  // namespace tempest::transport

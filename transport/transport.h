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

struct TransportOptions {
  int self = 0;  // this worker's index, 0-based
  EndpointKind endpoint = EndpointKind::kIpc;
  std::string run_dir;  // the run's private folder (ipc sockets live here)
  // ZeroMQ high-water marks, in messages. Credit-based flow control (runtime/remote_link.h)
  // keeps the traffic below them; they are the second line of defence, never a drop: PUSH
  // blocks at its HWM.
  int send_hwm = 100'000;
  int receive_hwm = 100'000;
};

// One worker's share of the data plane: a PULL socket every peer sends to (bound at creation)
// and one PUSH socket per peer worker, so there is exactly one channel per ordered worker pair
// and ZeroMQ keeps each FIFO. Messages are opaque bytes (frames of transport/frame.h).
// Send and Reconnect may be called from any thread (each peer's socket has its own lock);
// Receive from one thread only.
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
  // Messages sent/received so far (every thread's).
  virtual uint64_t sent() const noexcept = 0;
  virtual uint64_t received() const noexcept = 0;
};

// Binds the PULL socket (ipc: in options.run_dir; tcp: an ephemeral port on 127.0.0.1). Throws
// std::runtime_error naming the endpoint if binding fails.
std::unique_ptr<Transport> MakeZmqTransport(const TransportOptions& options);

// Creates a private run folder (mode 0700) under $XDG_RUNTIME_DIR, else $TMPDIR, else /tmp, named
// tempest-<name>-XXXXXX. Throws std::runtime_error with the reason.
std::string MakeRunDir(std::string_view name);

}  // namespace tempest::transport

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "transport/transport.h"

namespace tempest::transport {

CurveKeys MakeCurveKeys() {
  if (zmq_has("curve") == 0) {
    throw std::runtime_error("libzmq was built without CURVE: tcp links cannot be secured");
  }
  char keys[4][41];
  if (zmq_curve_keypair(keys[0], keys[1]) != 0 || zmq_curve_keypair(keys[2], keys[3]) != 0) {
    throw std::runtime_error(fmt::format("cannot make CURVE keys: {}", zmq_strerror(zmq_errno())));
  }
  return {keys[0], keys[1], keys[2], keys[3]};
}

namespace {

// A receiving socket as a CURVE server, when the run has keys.
void SecureServer(zmq::socket_t& socket, const CurveKeys& keys) {
  if (!keys.enabled()) return;
  socket.set(zmq::sockopt::curve_server, true);
  socket.set(zmq::sockopt::curve_secretkey, keys.server_secret);
  socket.set(zmq::sockopt::zap_domain, "tempest");
}

// A sending socket as a CURVE client, when the run has keys.
void SecureClient(zmq::socket_t& socket, const CurveKeys& keys) {
  if (!keys.enabled()) return;
  socket.set(zmq::sockopt::curve_serverkey, keys.server_public);
  socket.set(zmq::sockopt::curve_publickey, keys.client_public);
  socket.set(zmq::sockopt::curve_secretkey, keys.client_secret);
}

// The ZAP handler of a transport's context (RFC 27): accepts a CURVE client whose public key is
// the run's client key and refuses every other. Runs on its own thread until the context shuts
// down.
class ZapHandler {
 public:
  ZapHandler(zmq::context_t& context, const std::string& client_public_z85)
      : context_(context), socket_(context, zmq::socket_type::rep) {
    if (zmq_z85_decode(client_key_, client_public_z85.c_str()) == nullptr) {
      throw std::runtime_error("a CURVE client key is not 40 characters of Z85");
    }
    socket_.set(zmq::sockopt::linger, 0);
    socket_.bind("inproc://zeromq.zap.01");  // before any server socket accepts a peer
    thread_ = std::thread([this] { Serve(); });
  }
  // Shuts the context down (every blocking call in it returns ETERM): the thread then closes its
  // socket and ends. Call after the other sockets are closed.
  ~ZapHandler() {
    context_.shutdown();
    if (thread_.joinable()) thread_.join();
  }
  ZapHandler(const ZapHandler&) = delete;
  ZapHandler& operator=(const ZapHandler&) = delete;

 private:
  void Serve() {
    for (;;) {
      std::vector<zmq::message_t> request;
      try {
        if (!zmq::recv_multipart(socket_, std::back_inserter(request))) continue;
      } catch (const zmq::error_t&) {
        break;  // the context is shutting down
      }
      // version, request id, domain, address, identity, mechanism, then the credentials:
      // CURVE's is the client's 32-byte public key.
      const bool ok = request.size() >= 7 && request[5].to_string_view() == "CURVE" &&
                      request[6].size() == sizeof(client_key_) &&
                      std::memcmp(request[6].data(), client_key_, sizeof(client_key_)) == 0;
      const std::string_view id = request.size() > 1 ? request[1].to_string_view() : "";
      const std::array<zmq::const_buffer, 6> reply = {
          zmq::str_buffer("1.0"),
          zmq::buffer(id),
          zmq::buffer(std::string_view(ok ? "200" : "400")),
          zmq::buffer(std::string_view(ok ? "OK" : "not this run's client key")),
          zmq::str_buffer(""),
          zmq::str_buffer("")};
      try {
        (void)zmq::send_multipart(socket_, reply);
      } catch (const zmq::error_t&) {
        break;
      }
    }
    socket_.close();
  }

  zmq::context_t& context_;
  zmq::socket_t socket_;
  uint8_t client_key_[32] = {};
  std::thread thread_;
};

class ZmqTaskInbox final : public TaskInbox {
 public:
  ZmqTaskInbox(zmq::context_t& context, const std::string& wanted, int hwm, const CurveKeys& keys)
      : socket_(context, zmq::socket_type::pull) {
    socket_.set(zmq::sockopt::rcvhwm, hwm);
    socket_.set(zmq::sockopt::linger, 0);
    SecureServer(socket_, keys);
    try {
      socket_.bind(wanted);
    } catch (const zmq::error_t& e) {
      throw std::runtime_error(fmt::format("cannot listen on {}: {}", wanted, e.what()));
    }
    endpoint_ = socket_.get(zmq::sockopt::last_endpoint);
  }
  ~ZmqTaskInbox() override { socket_.close(); }

  const std::string& endpoint() const noexcept override { return endpoint_; }

  bool TryReceive(std::string& out) override {
    try {
      zmq::message_t msg;
      if (!socket_.recv(msg, zmq::recv_flags::dontwait)) return false;
      out.assign(static_cast<const char*>(msg.data()), msg.size());
      return true;
    } catch (const zmq::error_t&) {
      return false;  // the context is being torn down
    }
  }

  void Wait(int wake_fd, int timeout_ms) override {
    zmq::pollitem_t items[2] = {{socket_.handle(), 0, ZMQ_POLLIN, 0},
                                {nullptr, wake_fd, ZMQ_POLLIN, 0}};
    try {
      (void)zmq::poll(items, wake_fd >= 0 ? 2 : 1, std::chrono::milliseconds(timeout_ms));
    } catch (const zmq::error_t&) {
      // EINTR or a context being torn down: the caller looks again.
    }
  }

 private:
  zmq::socket_t socket_;
  std::string endpoint_;
};

class ZmqTransport final : public Transport {
  struct Peer {
    std::mutex mu;
    std::unique_ptr<zmq::socket_t> socket;
  };

 public:
  explicit ZmqTransport(const TransportOptions& options)
      : options_(options), context_(1), pull_(context_, zmq::socket_type::pull) {
    pull_.set(zmq::sockopt::rcvhwm, options_.receive_hwm);
    pull_.set(zmq::sockopt::linger, 0);
    if (options_.curve.enabled()) zap_.emplace(context_, options_.curve.client_public);
    SecureServer(pull_, options_.curve);
    const std::string wanted =
        options_.endpoint == EndpointKind::kIpc
            ? fmt::format("ipc://{}/worker-{}.sock", options_.run_dir, options_.self)
            : std::string("tcp://127.0.0.1:*");
    try {
      pull_.bind(wanted);
    } catch (const zmq::error_t& e) {
      throw std::runtime_error(fmt::format("cannot listen on {}: {}", wanted, e.what()));
    }
    endpoint_ = pull_.get(zmq::sockopt::last_endpoint);
  }

  ~ZmqTransport() override {
    for (auto* list : {&peers_, &tasks_}) {
      for (auto& peer : *list) {
        if (peer && peer->socket) peer->socket->close();
      }
    }
    pull_.close();
    zap_.reset();
    context_.close();
  }

  const std::string& endpoint() const noexcept override { return endpoint_; }

  void Connect(const std::vector<std::string>& endpoints) override {
    peers_.resize(endpoints.size());
    for (std::size_t i = 0; i < endpoints.size(); ++i) {
      if (static_cast<int>(i) == options_.self) continue;
      peers_[i] = std::make_unique<Peer>();
      std::lock_guard lock(peers_[i]->mu);
      Open(*peers_[i], endpoints[i]);
    }
    connected_.store(true, std::memory_order_release);
  }

  void Reconnect(int peer, const std::string& endpoint) override {
    Peer& p = *peers_.at(peer);
    std::lock_guard lock(p.mu);
    p.socket->set(zmq::sockopt::linger, 0);
    p.socket->close();
    Open(p, endpoint);
  }

  bool Send(int peer, std::string_view bytes) override {
    // Peers exist once Connect has published them: a frame that arrives earlier and asks for a
    // reply (a stray end-of-stream) gets none, instead of racing Connect for peers_.
    if (!connected_.load(std::memory_order_acquire)) return false;
    if (peer < 0 || static_cast<std::size_t>(peer) >= peers_.size() || !peers_[peer]) return false;
    return SendOn(*peers_[peer], bytes);
  }

  bool SendOn(Peer& p, std::string_view bytes) {
    std::lock_guard lock(p.mu);
    if (!p.socket) return false;
    try {
      (void)p.socket->send(zmq::const_buffer(bytes.data(), bytes.size()), zmq::send_flags::none);
    } catch (const zmq::error_t&) {
      return false;  // the context is being torn down
    }
    sent_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  bool Receive(std::string& out, std::chrono::milliseconds timeout) override {
    try {
      zmq::message_t msg;
      // Most receives find a message queued: poll only when there is none.
      if (!pull_.recv(msg, zmq::recv_flags::dontwait)) {
        zmq::pollitem_t item{pull_.handle(), 0, ZMQ_POLLIN, 0};
        if (zmq::poll(&item, 1, timeout) == 0) return false;
        if (!pull_.recv(msg, zmq::recv_flags::dontwait)) return false;
      }
      out.assign(static_cast<const char*>(msg.data()), msg.size());
    } catch (const zmq::error_t&) {
      return false;
    }
    received_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  std::unique_ptr<TaskInbox> OpenTaskInbox(int task) override {
    const std::string wanted =
        options_.endpoint == EndpointKind::kIpc
            ? fmt::format("ipc://{}/worker-{}-task-{}.sock", options_.run_dir, options_.self, task)
            : std::string("tcp://127.0.0.1:*");
    return std::make_unique<ZmqTaskInbox>(context_, wanted, options_.receive_hwm, options_.curve);
  }

  void ConnectTask(int task, const std::string& endpoint) override {
    if (task < 0) throw std::invalid_argument(fmt::format("no task {}", task));
    if (static_cast<std::size_t>(task) >= tasks_.size()) tasks_.resize(task + 1);
    if (!tasks_[task]) tasks_[task] = std::make_unique<Peer>();
    Peer& p = *tasks_[task];
    std::lock_guard lock(p.mu);
    if (p.socket) p.socket->close();
    Open(p, endpoint);
  }

  bool SendToTask(int task, std::string_view bytes) override {
    return static_cast<std::size_t>(task) < tasks_.size() && tasks_[task] &&
           SendOn(*tasks_[task], bytes);
  }

  uint64_t sent() const noexcept override { return sent_.load(std::memory_order_relaxed); }
  uint64_t received() const noexcept override { return received_.load(std::memory_order_relaxed); }

 private:
  void Open(Peer& p, const std::string& endpoint) {
    p.socket = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::push);
    p.socket->set(zmq::sockopt::sndhwm, options_.send_hwm);
    // Shutdown never relies on linger (libzmq can drop a dying process's last messages even
    // with -1); the end-of-stream handshake confirms delivery instead.
    p.socket->set(zmq::sockopt::linger, 0);
    SecureClient(*p.socket, options_.curve);
    try {
      p.socket->connect(endpoint);
    } catch (const zmq::error_t& e) {
      throw std::runtime_error(fmt::format("cannot connect to {}: {}", endpoint, e.what()));
    }
  }

  TransportOptions options_;
  zmq::context_t context_;
  std::optional<ZapHandler> zap_;  // with CURVE keys
  zmq::socket_t pull_;
  std::string endpoint_;
  std::vector<std::unique_ptr<Peer>> peers_;
  std::vector<std::unique_ptr<Peer>> tasks_;  // by task id: PUSH sockets to remote task inboxes
  std::atomic<bool> connected_{false};        // peers_ is filled (Connect)
  std::atomic<uint64_t> sent_{0};
  std::atomic<uint64_t> received_{0};
};

}  // namespace

std::unique_ptr<Transport> MakeZmqTransport(const TransportOptions& options) {
  return std::make_unique<ZmqTransport>(options);
}

namespace {

// The supervisor pid in a run folder's name, tempest-<name>-<pid>-XXXXXX; 0 if there is none.
pid_t RunDirOwner(std::string_view dir) {
  if (!dir.starts_with("tempest-")) return 0;
  const std::size_t suffix = dir.rfind('-');
  if (suffix == std::string_view::npos || suffix < 9) return 0;
  const std::size_t start = dir.rfind('-', suffix - 1);
  if (start == std::string_view::npos || start + 1 >= suffix) return 0;
  pid_t pid = 0;
  for (char c : dir.substr(start + 1, suffix - start - 1)) {
    if (!std::isdigit(static_cast<unsigned char>(c)) || pid > 100'000'000) return 0;
    pid = pid * 10 + (c - '0');
  }
  return pid;
}

std::string RunDirBase() {
  for (const char* var : {"XDG_RUNTIME_DIR", "TMPDIR"}) {
    const char* v = std::getenv(var);
    struct stat st {};
    if (v != nullptr && *v != '\0' && ::stat(v, &st) == 0 && S_ISDIR(st.st_mode) &&
        ::access(v, W_OK) == 0) {
      return v;
    }
  }
  return "/tmp";
}

}  // namespace

int RemoveOrphanedRunDirs(const std::string& base) noexcept {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(base, ec)) {
    const pid_t owner = RunDirOwner(entry.path().filename().string());
    struct stat st {};
    if (owner <= 0 || ::lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != ::getuid()) {
      continue;
    }
    if (::kill(owner, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to judge)
    std::error_code remove_error;
    if (std::filesystem::remove_all(entry.path(), remove_error) > 0) ++removed;
  }
  return removed;
}

std::string MakeRunDir(std::string_view name) {
  const std::string base = RunDirBase();
  RemoveOrphanedRunDirs(base);
  // Socket paths are limited to 107 bytes: keep the name short and plain.
  std::string clean;
  for (char c : name.substr(0, 16)) clean += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  std::string path = fmt::format("{}/tempest-{}-{}-XXXXXX", base, clean, ::getpid());
  if (::mkdtemp(path.data()) == nullptr) {  // mkdtemp creates it with mode 0700
    throw std::runtime_error(
        fmt::format("cannot create a run folder {}: {}", path, std::strerror(errno)));
  }
  return path;
}

}  // namespace tempest::transport

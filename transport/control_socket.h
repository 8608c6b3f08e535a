#pragma once

#include <string>

#include "transport/control_message.h"

namespace tempest::transport {

// A worker's blocking end of its control socket (a stream socket from the supervisor). Used by
// the worker's main thread only.
class ControlSocket {
 public:
  explicit ControlSocket(int fd) noexcept : fd_(fd) {}
  ~ControlSocket();
  ControlSocket(const ControlSocket&) = delete;
  ControlSocket& operator=(const ControlSocket&) = delete;

  int fd() const noexcept { return fd_; }
  // Writes one whole message. False if the supervisor is gone.
  bool Send(const ControlMessage& message);
  enum class ReadResult { kMessage, kClosed, kMalformed };
  // Reads one whole message (blocking until it is complete). kClosed: the supervisor is gone;
  // kMalformed: `error` says what was wrong.
  ReadResult Read(ControlMessage& out, std::string* error);

 private:
  int fd_;
  std::string buffer_;
};

}  // namespace tempest::transport

#include "transport/control_socket.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace tempest::transport {
namespace {

bool ReadAll(int fd, char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, data, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    data += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

}  // namespace

ControlSocket::~ControlSocket() {
  if (fd_ >= 0) ::close(fd_);
}

bool ControlSocket::Send(const ControlMessage& message) {
  buffer_.clear();
  AppendControlMessage(message, buffer_);
  const char* data = buffer_.data();
  std::size_t n = buffer_.size();
  while (n > 0) {
    // MSG_NOSIGNAL: a gone supervisor is an error return, not a SIGPIPE.
    const ssize_t w = ::send(fd_, data, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

ControlSocket::ReadResult ControlSocket::Read(ControlMessage& out, std::string* error) {
  char header[kControlHeaderBytes];
  if (!ReadAll(fd_, header, sizeof header)) return ReadResult::kClosed;
  const uint32_t n = ControlBodyLength(header);
  if (n > kMaxControlBytes) {
    if (error != nullptr) *error = fmt::format("a control message of {} bytes", n);
    return ReadResult::kMalformed;
  }
  buffer_.resize(n);
  if (!ReadAll(fd_, buffer_.data(), n)) return ReadResult::kClosed;
  return DecodeControlMessage(buffer_, out, error) ? ReadResult::kMessage : ReadResult::kMalformed;
}

}  // namespace tempest::transport

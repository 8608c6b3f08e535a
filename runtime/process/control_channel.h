#pragma once

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "transport/control_message.h"

namespace tempest::runtime {

// The supervisor's end of one worker incarnation's control socket (docs/multi-process.md):
// reads length-prefixed control messages and hands each to on_message, and writes what Send
// queues, in order. A message longer than transport::kMaxControlBytes goes to on_oversized and
// reading stops; a malformed one goes to on_malformed and is skipped. Once the channel is
// destroyed no handler runs again and nothing more is written. Supervisor thread only.
class ControlChannel {
 public:
  struct Handlers {
    std::function<void(const transport::ControlMessage&)> on_message;
    std::function<void(uint32_t bytes)> on_oversized;
    std::function<void(const std::string& error)> on_malformed;
  };

  // Takes `fd` (a connected stream socket) and starts reading.
  ControlChannel(boost::asio::io_context& io, int fd, Handlers handlers);
  ~ControlChannel();
  ControlChannel(const ControlChannel&) = delete;
  ControlChannel& operator=(const ControlChannel&) = delete;

  void Send(const transport::ControlMessage& message);

  struct State;  // the socket and buffers (control_channel.cpp)

 private:
  std::shared_ptr<State> state_;  // shared with pending reads and writes
};

}  // namespace tempest::runtime

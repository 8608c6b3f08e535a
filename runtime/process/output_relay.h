#pragma once

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tempest::runtime {

// Reads what worker processes write to their stderr and hands it on line by line, on the
// io_context's thread. Supervisor thread only.
class OutputRelay {
 public:
  using LineHandler = std::function<void(std::string_view line)>;
  OutputRelay(boost::asio::io_context& io, LineHandler on_line)
      : io_(io), on_line_(std::move(on_line)) {}

  // Relays `fd` (a pipe's read end, now owned) until its writers close it.
  void Add(int fd);
  // After the event loop has stopped: hands on what is left in the pipes without blocking.
  void Drain();

 private:
  struct Pipe {
    Pipe(boost::asio::io_context& io, int fd) : stream(io, fd) {}
    boost::asio::posix::stream_descriptor stream;
    std::array<char, 4096> buffer{};
    std::string partial;
  };
  void Read(const std::shared_ptr<Pipe>& pipe);
  // Hands on every whole line of `data`; at the end, the unterminated rest too.
  void HandOver(Pipe& pipe, std::string_view data, bool at_end);

  boost::asio::io_context& io_;
  LineHandler on_line_;
  std::vector<std::shared_ptr<Pipe>> pipes_;
};

}  // namespace tempest::runtime

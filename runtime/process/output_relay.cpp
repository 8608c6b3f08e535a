#include "runtime/process/output_relay.h"

#include <boost/asio/buffer.hpp>

namespace tempest::runtime {

void OutputRelay::Add(int fd) {
  auto pipe = std::make_shared<Pipe>(io_, fd);
  pipes_.push_back(pipe);
  Read(pipe);
}

void OutputRelay::Read(const std::shared_ptr<Pipe>& pipe) {
  pipe->stream.async_read_some(boost::asio::buffer(pipe->buffer),
                               [this, pipe](const boost::system::error_code& ec, std::size_t n) {
                                 HandOver(*pipe, std::string_view(pipe->buffer.data(), n),
                                          ec.failed());
                                 if (!ec) Read(pipe);
                               });
}

void OutputRelay::HandOver(Pipe& pipe, std::string_view data, bool at_end) {
  pipe.partial.append(data);
  std::size_t start = 0;
  for (std::size_t nl; (nl = pipe.partial.find('\n', start)) != std::string::npos; start = nl + 1) {
    on_line_(std::string_view(pipe.partial).substr(start, nl - start));
  }
  pipe.partial.erase(0, start);
  if (at_end && !pipe.partial.empty()) {
    on_line_(pipe.partial);
    pipe.partial.clear();
  }
}

void OutputRelay::Drain() {
  for (const std::shared_ptr<Pipe>& pipe : pipes_) {
    if (!pipe->stream.is_open()) continue;
    boost::system::error_code ec;
    pipe->stream.non_blocking(true, ec);
    while (!ec) {
      const std::size_t n = pipe->stream.read_some(boost::asio::buffer(pipe->buffer), ec);
      HandOver(*pipe, std::string_view(pipe->buffer.data(), n), ec.failed());
    }
  }
  pipes_.clear();
}

}  // namespace tempest::runtime

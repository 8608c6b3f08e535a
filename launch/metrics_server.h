#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <functional>
#include <string>

namespace tempest::launch {

// The supervisor's HTTP endpoint (Boost.Beast) on the run's io_context: GET /metrics answers
// with what `metrics` returns (Prometheus' text format); any other path is 404, any other method
// 405. One request per connection. Throws std::runtime_error naming the address when it cannot
// listen.
class MetricsServer {
 public:
  // `port` 0: a free one (port() says which).
  MetricsServer(boost::asio::io_context& io, const std::string& host, uint16_t port,
                std::function<std::string()> metrics);
  uint16_t port() const noexcept { return port_; }
  // Stops accepting; connections being answered finish.
  void Close();

 private:
  void Accept();

  boost::asio::ip::tcp::acceptor acceptor_;
  std::function<std::string()> metrics_;
  uint16_t port_ = 0;
};

}  // namespace tempest::launch

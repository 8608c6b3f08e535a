#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tempest::launch {

// What a GET answers: a content type and a body.
struct HttpAnswer {
  std::string content_type;
  std::string body;
};

// The supervisor's HTTP endpoint (Boost.Beast) on the run's io_context: a GET (or HEAD) is
// answered by `handler` given the request's target, 404 when it returns nullopt; any other
// method is 405. One request per connection. Throws std::runtime_error naming the address when
// it cannot listen.
class MetricsServer {
 public:
  using Handler = std::function<std::optional<HttpAnswer>(std::string_view target)>;
  // `port` 0: a free one (port() says which).
  MetricsServer(boost::asio::io_context& io, const std::string& host, uint16_t port,
                Handler handler);
  uint16_t port() const noexcept { return port_; }
  // Stops accepting; connections being answered finish.
  void Close();

 private:
  void Accept();

  boost::asio::ip::tcp::acceptor acceptor_;
  Handler handler_;
  uint16_t port_ = 0;
};

}  // namespace tempest::launch

#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace tempest::launch {

// A request as the handler sees it: GET (HEAD is answered as GET) or POST, the target, and the
// X-Tempest-Token header (empty when absent).
struct HttpRequest {
  bool post = false;
  std::string_view target;
  std::string_view token;
};

// What a request is answered with.
struct HttpAnswer {
  std::string content_type;
  std::string body;
  int status = 200;
};

// The supervisor's HTTP endpoint (Boost.Beast) on the run's io_context: a GET, HEAD or POST is
// answered by `handler`, 404 when it returns nullopt; any other method is 405. One request per
// connection. Throws std::runtime_error naming the address when it cannot listen.
class MetricsServer {
 public:
  using Handler = std::function<std::optional<HttpAnswer>(const HttpRequest& request)>;
  // `port` 0: a free one (port() says which).
  MetricsServer(boost::asio::io_context& io, const std::string& host, uint16_t port,
                Handler handler);
  uint16_t port() const noexcept { return port_; }
  // Stops accepting; connections being answered finish.
  void Close();

 private:
  void Accept();

  boost::asio::ip::tcp::acceptor acceptor_;
  std::shared_ptr<Handler> handler_;
  uint16_t port_ = 0;
};

}  // namespace tempest::launch

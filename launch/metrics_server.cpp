#include "launch/metrics_server.h"

#include <fmt/format.h>

#include <boost/asio/ip/address.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <memory>
#include <stdexcept>

namespace tempest::launch {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

// One connection: reads a request (bounded in size and time), writes the answer, closes.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<MetricsServer::Handler> handler)
      : stream_(std::move(socket)), handler_(std::move(handler)) {}

  void Start() {
    parser_.header_limit(16 * 1024);
    parser_.body_limit(16 * 1024);
    stream_.expires_after(std::chrono::seconds(5));  // a client that never finishes its request
    http::async_read(stream_, buffer_, parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (!ec) self->Answer();
                     });
  }

 private:
  void Answer() {
    const http::request<http::string_body>& req = parser_.get();
    response_.version(req.version());
    response_.keep_alive(false);
    response_.set(http::field::server, "tempest");
    const auto token = req.find("X-Tempest-Token");
    const HttpRequest request{req.method() == http::verb::post,
                              std::string_view(req.target().data(), req.target().size()),
                              token == req.end()
                                  ? std::string_view()
                                  : std::string_view(token->value().data(), token->value().size())};
    if (req.method() != http::verb::get && req.method() != http::verb::head &&
        req.method() != http::verb::post) {
      Reply(http::status::method_not_allowed, "text/plain", "only GET and POST\n");
    } else if (std::optional<HttpAnswer> answer = (*handler_)(request)) {
      Reply(static_cast<http::status>(answer->status), answer->content_type,
            std::move(answer->body));
    } else {
      Reply(http::status::not_found, "text/plain", "not found; the metrics are at /metrics\n");
    }
    if (req.method() == http::verb::head) response_.body().clear();
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code, std::size_t) {
                        beast::error_code ignored;
                        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                      });
  }

  void Reply(http::status status, const std::string& type, std::string body) {
    response_.result(status);
    response_.set(http::field::content_type, type);
    response_.body() = std::move(body);
    response_.prepare_payload();
  }

  beast::tcp_stream stream_;
  std::shared_ptr<MetricsServer::Handler> handler_;  // one for all sessions: it keeps state
  beast::flat_buffer buffer_;
  http::request_parser<http::string_body> parser_;
  http::response<http::string_body> response_;
};

}  // namespace

MetricsServer::MetricsServer(boost::asio::io_context& io, const std::string& host, uint16_t port,
                             Handler handler)
    : acceptor_(io), handler_(std::make_shared<Handler>(std::move(handler))) {
  beast::error_code ec;
  const auto address = boost::asio::ip::make_address(host, ec);
  if (ec) throw std::runtime_error(fmt::format("metrics: '{}' is not an IP address", host));
  const tcp::endpoint endpoint(address, port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(boost::asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(boost::asio::socket_base::max_listen_connections, ec);
  if (ec) {
    throw std::runtime_error(
        fmt::format("metrics: cannot listen on {}:{}: {}", host, port, ec.message()));
  }
  port_ = acceptor_.local_endpoint().port();
  Accept();
}

void MetricsServer::Close() {
  beast::error_code ignored;
  acceptor_.close(ignored);
}

void MetricsServer::Accept() {
  acceptor_.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec) return;  // closed
    std::make_shared<Session>(std::move(socket), handler_)->Start();
    Accept();
  });
}

}  // namespace tempest::launch

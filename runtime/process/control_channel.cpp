#include "runtime/process/control_channel.h"

#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <deque>

namespace tempest::runtime {

namespace asio = boost::asio;

struct ControlChannel::State {
  State(asio::io_context& io, Handlers h) : socket(io), handlers(std::move(h)) {}
  asio::local::stream_protocol::socket socket;
  Handlers handlers;
  char header[transport::kControlHeaderBytes] = {};
  std::string body;
  std::deque<std::string> out;
  bool writing = false;
  bool closed = false;
};

namespace {

void ReadHeader(const std::shared_ptr<ControlChannel::State>& s);

void ReadBody(const std::shared_ptr<ControlChannel::State>& s) {
  asio::async_read(s->socket, asio::buffer(s->body),
                   [s](const boost::system::error_code& ec, std::size_t) {
                     if (ec || s->closed) return;
                     transport::ControlMessage m;
                     std::string error;
                     if (transport::DecodeControlMessage(s->body, m, &error)) {
                       s->handlers.on_message(m);
                     } else {
                       s->handlers.on_malformed(error);
                     }
                     if (!s->closed) ReadHeader(s);
                   });
}

void ReadHeader(const std::shared_ptr<ControlChannel::State>& s) {
  asio::async_read(s->socket, asio::buffer(s->header, sizeof s->header),
                   [s](const boost::system::error_code& ec, std::size_t) {
                     if (ec || s->closed) return;
                     const uint32_t n = transport::ControlBodyLength(s->header);
                     if (n > transport::kMaxControlBytes) {
                       s->handlers.on_oversized(n);
                       return;
                     }
                     s->body.resize(n);
                     ReadBody(s);
                   });
}

void WriteNext(const std::shared_ptr<ControlChannel::State>& s) {
  if (s->out.empty() || s->closed) {
    s->writing = false;
    return;
  }
  s->writing = true;
  asio::async_write(s->socket, asio::buffer(s->out.front()),
                    [s](const boost::system::error_code& ec, std::size_t) {
                      if (ec) {
                        s->writing = false;
                        return;  // the worker is gone; its exit is handled by the reaper
                      }
                      s->out.pop_front();
                      WriteNext(s);
                    });
}

}  // namespace

ControlChannel::ControlChannel(asio::io_context& io, int fd, Handlers handlers)
    : state_(std::make_shared<State>(io, std::move(handlers))) {
  boost::system::error_code ec;
  state_->socket.assign(asio::local::stream_protocol(), fd, ec);
  if (!ec) ReadHeader(state_);
}

ControlChannel::~ControlChannel() {
  state_->closed = true;
  boost::system::error_code ec;
  state_->socket.close(ec);  // pending reads and writes end with an error, and see `closed`
}

void ControlChannel::Send(const transport::ControlMessage& message) {
  if (state_->closed) return;
  std::string bytes;
  transport::AppendControlMessage(message, bytes);
  state_->out.push_back(std::move(bytes));
  if (!state_->writing) WriteNext(state_);
}

}  // namespace tempest::runtime

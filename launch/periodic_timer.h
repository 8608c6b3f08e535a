#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>

namespace tempest::launch {

// Calls `tick` on the io_context's thread every `interval`, from Start() until Stop(), both
// called on that thread, Start() once. After Stop(), `tick` is never called again, even when the
// timer had already expired and its completion was queued: cancel() cannot withdraw that one,
// and a tick that re-armed the timer would keep io_context::run() from ever returning.
class PeriodicTimer {
 public:
  PeriodicTimer(boost::asio::io_context& io, std::chrono::steady_clock::duration interval,
                std::function<void()> tick);

  void Start();
  void Stop();

 private:
  void Arm();

  boost::asio::steady_timer timer_;
  std::chrono::steady_clock::duration interval_;
  std::function<void()> tick_;
  bool running_ = false;
};

}  // namespace tempest::launch

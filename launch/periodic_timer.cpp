#include "launch/periodic_timer.h"

#include <utility>

namespace tempest::launch {

PeriodicTimer::PeriodicTimer(boost::asio::io_context& io,
                             std::chrono::steady_clock::duration interval,
                             std::function<void()> tick)
    : timer_(io), interval_(interval), tick_(std::move(tick)) {}

void PeriodicTimer::Start() {
  running_ = true;
  Arm();
}

void PeriodicTimer::Stop() {
  running_ = false;
  timer_.cancel();
}

void PeriodicTimer::Arm() {
  timer_.expires_after(interval_);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || !running_) return;
    tick_();
    if (running_) Arm();
  });
}

}  // namespace tempest::launch

#include "launch/periodic_timer.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>

namespace tempest::launch {
namespace {

using std::chrono::milliseconds;

TEST(PeriodicTimerTest, TicksUntilStopped) {
  boost::asio::io_context io;
  int ticks = 0;
  PeriodicTimer* self = nullptr;
  PeriodicTimer timer(io, milliseconds(1), [&] {
    if (++ticks == 3) self->Stop();
  });
  self = &timer;
  timer.Start();
  io.run();  // returns once nothing is armed
  EXPECT_EQ(ticks, 3);
}

// A run's end stops its timers from a handler that may run after a timer has expired but before
// its completion ran: that completion must not tick (nor re-arm, which would keep run() going).
TEST(PeriodicTimerTest, NoTickAfterStopEvenWhenTheTimerHadAlreadyFired) {
  boost::asio::io_context io;
  int ticks = 0;
  PeriodicTimer timer(io, milliseconds(0), [&] {
    ++ticks;
    io.stop();  // bounds the run if the tick re-arms
  });
  // Both timers have expired by the time run() looks; the one due earlier completes first.
  boost::asio::steady_timer stopper(io, std::chrono::steady_clock::time_point());
  stopper.async_wait([&](const boost::system::error_code&) { timer.Stop(); });
  timer.Start();
  io.run();
  EXPECT_EQ(ticks, 0);
}

}  // namespace
}  // namespace tempest::launch

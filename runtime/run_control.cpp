#include "runtime/run_control.h"

namespace tempest::runtime {

RunControl::RunControl(int tasks, Hooks hooks, bool open_when_all_arrived)
    : tasks_(tasks),
      open_when_all_arrived_(open_when_all_arrived),
      hooks_(std::move(hooks)),
      unfinished_(tasks) {}

void RunControl::ArriveAndWaitForStart() {
  std::unique_lock lock(mu_);
  const bool last = ++arrived_ == tasks_;
  if (last && open_when_all_arrived_) gate_open_ = true;
  if (gate_open_) gate_cv_.notify_all();
  if (last) {
    lock.unlock();
    Notify();
    lock.lock();
  }
  gate_cv_.wait(lock, [&] { return gate_open_ || aborted(); });
}

bool RunControl::all_arrived() const {
  std::lock_guard lock(mu_);
  return arrived_ == tasks_;
}

void RunControl::OpenGate() {
  {
    std::lock_guard lock(mu_);
    gate_open_ = true;
  }
  gate_cv_.notify_all();
}

void RunControl::RequestStop() {
  {
    std::lock_guard lock(mu_);
    stop_.store(true, std::memory_order_relaxed);
  }
  finished_cv_.notify_all();
}

bool RunControl::WaitAllFinishedOrStop() {
  std::unique_lock lock(mu_);
  finished_cv_.wait(lock, [&] { return unfinished_ == 0 || stop_requested(); });
  return unfinished_ == 0;
}

void RunControl::Fatal(const std::string& message) {
  {
    std::lock_guard lock(mu_);
    if (fatal_error_.empty()) fatal_error_ = message;
  }
  Abort();
  Notify();
}

void RunControl::Abort() {
  stop_.store(true, std::memory_order_relaxed);
  if (!aborted_.exchange(true)) {
    {
      // Under the lock, so a task about to wait at the gate sees it.
      std::lock_guard lock(mu_);
    }
    gate_cv_.notify_all();
    finished_cv_.notify_all();
    if (hooks_.close_all_queues) hooks_.close_all_queues();
  }
}

std::string RunControl::fatal_error() const {
  std::lock_guard lock(mu_);
  return fatal_error_;
}

void RunControl::TaskFinished() {
  {
    std::lock_guard lock(mu_);
    if (--unfinished_ == 0) finished_cv_.notify_all();
  }
  Notify();
}

int RunControl::unfinished() const {
  std::lock_guard lock(mu_);
  return unfinished_;
}

bool RunControl::WaitAllFinished(std::chrono::steady_clock::time_point until) {
  std::unique_lock lock(mu_);
  return finished_cv_.wait_until(lock, until, [&] { return unfinished_ == 0; });
}

void RunControl::WaitAllFinished() {
  std::unique_lock lock(mu_);
  finished_cv_.wait(lock, [&] { return unfinished_ == 0; });
}

}  // namespace tempest::runtime

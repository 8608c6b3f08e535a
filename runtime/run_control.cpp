#include "runtime/run_control.h"

namespace tempest::runtime {

RunControl::RunControl(int tasks, std::function<void()> close_all_queues)
    : started_(tasks), close_all_queues_(std::move(close_all_queues)), unfinished_(tasks) {}

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
}

void RunControl::Abort() {
  stop_.store(true, std::memory_order_relaxed);
  if (!aborted_.exchange(true)) close_all_queues_();
}

std::string RunControl::fatal_error() const {
  std::lock_guard lock(mu_);
  return fatal_error_;
}

void RunControl::TaskFinished() {
  std::lock_guard lock(mu_);
  if (--unfinished_ == 0) finished_cv_.notify_all();
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

#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <latch>
#include <mutex>
#include <string>

namespace tempest::runtime {

// State shared by every executor of one run: the start barrier, the stop request, fatal errors
// and the count of finished tasks. Thread-safe.
class RunControl {
 public:
  RunControl(int tasks, std::function<void()> close_all_queues);

  // Each task arrives once it is prepared/opened; spouts start emitting when all have.
  void ArriveAndWaitForStart() { started_.arrive_and_wait(); }

  // Graceful stop: spouts stop emitting and send end-of-stream; everything drains.
  void RequestStop();
  bool stop_requested() const noexcept { return stop_.load(std::memory_order_relaxed); }

  // A failure that ends the run at once: recorded (the first one wins), every queue closed.
  void Fatal(const std::string& message);
  // Force-stop without an error (graceful stop timed out).
  void Abort();
  bool aborted() const noexcept { return aborted_.load(std::memory_order_relaxed); }
  std::string fatal_error() const;

  void TaskFinished();
  // Waits until every task finished (true) or a stop was requested (false).
  bool WaitAllFinishedOrStop();
  // Waits until every task finished; false if `until` passed first.
  bool WaitAllFinished(std::chrono::steady_clock::time_point until);
  void WaitAllFinished();

 private:
  std::latch started_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> aborted_{false};
  std::function<void()> close_all_queues_;
  mutable std::mutex mu_;
  std::condition_variable finished_cv_;
  int unfinished_;
  std::string fatal_error_;
};

}  // namespace tempest::runtime

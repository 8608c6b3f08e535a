#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>

namespace tempest::runtime {

// State shared by every executor of one process's share of a run: the start gate, the stop
// request, fatal errors and the count of finished tasks. Thread-safe.
class RunControl {
 public:
  struct Hooks {
    std::function<void()> close_all_queues;  // called once, on the first Abort/Fatal
    // Called (from any task thread) when something a coordinator waits for happened: every
    // task arrived, a task finished, a fatal error. May be empty.
    std::function<void()> notify;
  };
  // With `open_when_all_arrived` the gate opens by itself once every task has arrived (one
  // process); otherwise OpenGate() opens it (a worker, once the supervisor says start).
  RunControl(int tasks, Hooks hooks, bool open_when_all_arrived = true);

  // Each task arrives once it is prepared/opened, then waits for the gate (spouts start emitting
  // when it opens; an abort opens it too).
  void ArriveAndWaitForStart();
  bool all_arrived() const;
  void OpenGate();

  // Graceful stop: spouts stop emitting and send end-of-stream; everything drains.
  void RequestStop();
  bool stop_requested() const noexcept { return stop_.load(std::memory_order_relaxed); }

  // Deactivated spouts stop emitting (Spout::Deactivate) until activated again; acks, replays
  // of failed tuples already due and the bolts go on. Active from the start.
  void SetActive(bool active) noexcept { active_.store(active, std::memory_order_relaxed); }
  bool active() const noexcept { return active_.load(std::memory_order_relaxed); }

  // A failure that ends the run at once: recorded (the first one wins), every queue closed.
  void Fatal(const std::string& message);
  // Force-stop without an error (graceful stop timed out).
  void Abort();
  bool aborted() const noexcept { return aborted_.load(std::memory_order_relaxed); }
  std::string fatal_error() const;

  void TaskFinished();
  int unfinished() const;
  // Waits until every task finished (true) or a stop was requested (false).
  bool WaitAllFinishedOrStop();
  // Waits until every task finished; false if `until` passed first.
  bool WaitAllFinished(std::chrono::steady_clock::time_point until);
  void WaitAllFinished();

 private:
  void Notify() {
    if (hooks_.notify) hooks_.notify();
  }

  const int tasks_;
  const bool open_when_all_arrived_;
  Hooks hooks_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> aborted_{false};
  std::atomic<bool> active_{true};
  mutable std::mutex mu_;
  std::condition_variable gate_cv_;
  std::condition_variable finished_cv_;
  int arrived_ = 0;
  bool gate_open_ = false;
  int unfinished_;
  std::string fatal_error_;
};

}  // namespace tempest::runtime

#include "runtime/queues/task_queue.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

namespace tempest::runtime {

TaskQueue::TaskQueue(std::size_t capacity_tuples, std::chrono::microseconds yield_before_sleep)
    : capacity_(std::max<std::size_t>(1, capacity_tuples)),
      wake_at_(std::max<std::size_t>(1, capacity_ / 8)),
      yield_for_(std::max(std::chrono::microseconds(0), yield_before_sleep)) {}

TaskQueue::~TaskQueue() {
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void TaskQueue::AttachSource(EnvelopeSource* source) {
  std::lock_guard lock(mu_);
  if (source != nullptr && wake_fd_ < 0) {
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) {
      throw std::runtime_error(std::string("cannot create an eventfd: ") + std::strerror(errno));
    }
  }
  source_ = source;
}

void TaskQueue::SignalWakeFd() const noexcept {
  const uint64_t one = 1;
  // EAGAIN (the counter is saturated) still leaves it readable: nothing to do.
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
}

namespace {
// Enough buffers for a full queue of small batches; more would only hold memory.
constexpr std::size_t kMaxSpares = 64;
}  // namespace

bool TaskQueue::Push(Envelope&& envelope, Envelope* spare, WakeConsumer wake,
                     const WhileBlocked* while_blocked) {
  std::unique_lock lock(mu_);
  if (tuples_ >= capacity_ && !closed_) {
    ++stats_.blocked_pushes;
    ++producers_waiting_;
    WaitRunning(
        not_full_, lock, [&] { return tuples_ < capacity_ || closed_; }, while_blocked);
    --producers_waiting_;
  }
  const bool queued = Enqueue(lock, std::move(envelope), spare, wake);
  // The spare comes back with what it carried: cleared here, unlocked, on the producer's thread
  // (Pop says why).
  if (spare != nullptr) ClearSpare(*spare);
  return queued;
}

bool TaskQueue::PushWithoutWaiting(Envelope&& envelope, Envelope* spare) {
  std::unique_lock lock(mu_);
  const bool queued = Enqueue(lock, std::move(envelope), spare, WakeConsumer::kNow);
  if (spare != nullptr) ClearSpare(*spare);
  return queued;
}

void TaskQueue::Wake() {
  std::unique_lock lock(mu_);
  WakeIf(lock, !items_.empty());
}

void TaskQueue::WakeIf(std::unique_lock<std::mutex>& lock, bool due) {
  const bool wake = consumer_waiting_ && due;
  const bool by_fd = source_waiting_;
  const bool yielding = consumer_yielding_;
  if (wake) {
    consumer_waiting_ = false;  // one notification is enough
    ++stats_.wakeups;
    if (yielding) woken_.store(true, std::memory_order_release);
  }
  lock.unlock();
  if (!wake || yielding) return;
  if (by_fd) {
    SignalWakeFd();
  } else {
    not_empty_.notify_one();
  }
}

bool TaskQueue::Enqueue(std::unique_lock<std::mutex>& lock, Envelope&& envelope, Envelope* spare,
                        WakeConsumer wake_mode) {
  if (closed_) return false;
  envelope.queued_at = std::chrono::steady_clock::now();  // after any wait for room
  const Envelope::Kind kind = envelope.kind;
  tuples_ += envelope.TupleCount();
  stats_.high_water_tuples = std::max(stats_.high_water_tuples, tuples_);
  items_.push_back(std::move(envelope));
  nonempty_.store(true, std::memory_order_relaxed);
  if (spare != nullptr) TakeSpare(kind, *spare);
  // A full queue is past wake_at_, so a producer never blocks on a consumer left asleep.
  WakeIf(lock, wake_mode == WakeConsumer::kNow || tuples_ >= wake_at_);
  return true;
}

void TaskQueue::TakeSpare(Envelope::Kind kind, Envelope& spare) {
  if (kind == Envelope::Kind::kTuples && !spares_.empty()) {
    spare.rows = std::move(spares_.back());
    spares_.pop_back();
    spare_count_.store(spares_.size(), std::memory_order_relaxed);
  } else if (kind == Envelope::Kind::kAcks && !ack_spares_.empty()) {
    spare.acks = std::move(ack_spares_.back());
    ack_spares_.pop_back();
    ack_spare_count_.store(ack_spares_.size(), std::memory_order_relaxed);
  }
}

bool TaskQueue::PopAll(std::vector<Envelope>& inout) { return Pop(inout, std::nullopt); }

bool TaskQueue::PopAllUntil(std::vector<Envelope>& inout,
                            std::chrono::steady_clock::time_point deadline) {
  return Pop(inout, deadline);
}

bool TaskQueue::Pop(std::vector<Envelope>& inout,
                    std::optional<std::chrono::steady_clock::time_point> deadline) {
  // Processed batches go back to the producers with their rows still in them: a producer clears
  // them when it takes the buffer for its next batch, so what it allocated (the side values of
  // lists and maps) is freed on its own thread, which the allocator takes back cheaply (freeing
  // another thread's blocks is several times dearer, and a fresh block costs page faults). Ack
  // message buffers circulate the same way. Buffers past the spares' room are destroyed here,
  // outside the lock. Only this (single) consumer adds spares, so there is at least `room` room
  // once locked.
  std::size_t room =
      kMaxSpares - std::min(kMaxSpares, spare_count_.load(std::memory_order_relaxed));
  std::size_t ack_room =
      kMaxSpares - std::min(kMaxSpares, ack_spare_count_.load(std::memory_order_relaxed));
  for (Envelope& e : inout) {
    if (e.rows.capacity() > 0 && room > 0) {
      --room;
    } else {
      e.rows = {};
    }
    if (e.acks.capacity() > 0 && ack_room > 0) {
      --ack_room;
    } else {
      e.acks = {};
    }
  }
  std::unique_lock lock(mu_);
  for (Envelope& e : inout) {
    if (e.rows.capacity() > 0) spares_.push_back(std::move(e.rows));
    if (e.acks.capacity() > 0) ack_spares_.push_back(std::move(e.acks));
  }
  spare_count_.store(spares_.size(), std::memory_order_relaxed);
  ack_spare_count_.store(ack_spares_.size(), std::memory_order_relaxed);
  inout.clear();
  if (source_ != nullptr) return PopWithSource(lock, inout, deadline);
  // Unless a wake-up ended the yield, what was queued meanwhile is not due: sleep on.
  const bool not_woken = items_.empty() && !closed_ && !YieldForInput(lock, inout, deadline);
  if ((items_.empty() || not_woken) && !closed_) {
    consumer_waiting_ = true;
    ++stats_.consumer_waits;
    const auto ready = [&] { return !consumer_waiting_ || closed_; };
    if (deadline) {
      not_empty_.wait_until(lock, *deadline, ready);
    } else {
      not_empty_.wait(lock, ready);
    }
    consumer_waiting_ = false;
  }
  if (items_.empty()) return !closed_;  // timed out (true) or closed and drained (false)
  TakeAll(lock, inout);
  return true;
}

bool TaskQueue::YieldForInput(std::unique_lock<std::mutex>& lock, std::vector<Envelope>& inout,
                              std::optional<std::chrono::steady_clock::time_point> deadline) {
  if (yield_for_ == std::chrono::steady_clock::duration::zero()) return false;
  auto end = std::chrono::steady_clock::now() + yield_for_;
  if (deadline && *deadline < end) end = *deadline;
  consumer_waiting_ = true;
  consumer_yielding_ = true;
  ++stats_.yields;
  woken_.store(false, std::memory_order_relaxed);
  lock.unlock();
  bool input = false;
  for (;;) {
    if (woken_.load(std::memory_order_acquire)) {
      input = true;
      break;
    }
    if (source_ != nullptr) {
      source_->Drain(inout);
      if (!inout.empty()) {
        input = true;
        break;
      }
    }
    if (std::chrono::steady_clock::now() >= end) break;
    std::this_thread::yield();
  }
  lock.lock();
  // A wake-up may have come between the last look and the lock: it is not sent again.
  input = input || woken_.load(std::memory_order_relaxed);
  consumer_yielding_ = false;
  consumer_waiting_ = false;
  if (input) ++stats_.yields_ended_by_input;
  return input;
}

void TaskQueue::TakeAll(std::unique_lock<std::mutex>& lock, std::vector<Envelope>& inout) {
  if (inout.empty()) {
    inout.swap(items_);
  } else {
    for (Envelope& e : items_) inout.push_back(std::move(e));
    items_.clear();
  }
  tuples_ = 0;
  nonempty_.store(false, std::memory_order_relaxed);
  const bool wake = producers_waiting_ > 0;
  lock.unlock();
  if (wake) not_full_.notify_all();
}

bool TaskQueue::PopWithSource(std::unique_lock<std::mutex>& lock, std::vector<Envelope>& inout,
                              std::optional<std::chrono::steady_clock::time_point> deadline) {
  bool yielded = false;  // once per call: after that, sleep
  for (;;) {
    const std::size_t queued = tuples_;
    if (!items_.empty()) {
      TakeAll(lock, inout);
    } else {
      lock.unlock();
    }
    const std::size_t from_queue = inout.size();
    source_->Drain(inout);
    if (inout.size() > from_queue) {
      // What waited in the source counts as queued: the high-water mark covers both.
      std::size_t tuples = queued;
      for (std::size_t i = from_queue; i < inout.size(); ++i) tuples += inout[i].TupleCount();
      lock.lock();
      stats_.high_water_tuples = std::max(stats_.high_water_tuples, tuples);
      lock.unlock();
    }
    if (!inout.empty()) return true;
    lock.lock();
    if (!items_.empty()) continue;
    if (closed_) return false;
    if (!yielded) {
      yielded = true;
      if (YieldForInput(lock, inout, deadline)) {
        if (!inout.empty()) return true;
        continue;
      }
      // Not woken: what was queued meanwhile is not due yet, so sleep on (below).
    }
    int timeout_ms = -1;
    if (deadline) {
      const auto left = *deadline - std::chrono::steady_clock::now();
      if (left <= std::chrono::steady_clock::duration::zero()) {  // timed out
        if (!items_.empty()) TakeAll(lock, inout);
        return true;
      }
      timeout_ms = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(left).count());
    }
    consumer_waiting_ = true;
    source_waiting_ = true;
    ++stats_.consumer_waits;
    lock.unlock();
    source_->Wait(wake_fd_, timeout_ms);
    uint64_t count = 0;
    [[maybe_unused]] const ssize_t n = ::read(wake_fd_, &count, sizeof count);  // clear it
    lock.lock();
    consumer_waiting_ = false;
    source_waiting_ = false;
  }
}

void TaskQueue::Close() {
  bool by_fd = false;
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    by_fd = wake_fd_ >= 0;
    woken_.store(true, std::memory_order_release);  // ends a yield
  }
  if (by_fd) SignalWakeFd();
  not_empty_.notify_all();
  not_full_.notify_all();
}

TaskQueue::Stats TaskQueue::GetStats() const {
  std::lock_guard lock(mu_);
  Stats stats = stats_;
  stats.queued_tuples = tuples_;
  stats.capacity_tuples = capacity_;
  return stats;
}

}  // namespace tempest::runtime

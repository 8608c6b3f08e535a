#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "runtime/queues/envelope.h"

namespace tempest::runtime {

// The inbound channel of one task: a bounded multi-producer, single-consumer FIFO of envelopes.
// Producers block while it holds `capacity` tuples or more (backpressure: a slow consumer slows
// whoever feeds it; nothing is dropped), so at most capacity + one batch per producer is queued.
// Order is FIFO per producer. Close() wakes everyone; afterwards Push refuses and PopAll drains.
// Batch buffers circulate instead of being freed: the consumer hands its processed envelopes
// back to PopAll, and Push gives their batches (still allocated, and still holding the processed
// rows, which the producer then clears on its own thread) to producers.
//
// Waking the consumer costs the producer a futex call and the consumer a context switch, per
// batch when the consumer is the faster of the two. So a producer in the middle of a burst
// pushes with WakeConsumer::kLater: a waiting consumer is woken only once `wake_at` tuples are
// queued (an eighth of the capacity), or by the producer's next kNow push or Wake() (Outbox::Flush
// does either before its task can block, so nothing waits longer than its producer's burst).
// A queue may also have a source: a task's own network inbox (runtime/process/remote_link.h). Pop
// then takes what the source has too and, when both are empty, waits on both at once, so a frame
// from another worker reaches its task without a second thread in between.
//
// Before it sleeps, a consumer that found nothing yields the CPU in a loop for up to
// `yield_before_sleep` (topology.wait.yield.micros), watching for the wake-up a producer would
// have sent and for the source: on a VM a sleeping thread takes tens of µs to run again, more
// than a whole tuple tree spends working. While it yields, producers flag it instead of
// signalling, so deferred wake-ups still hold (a yielding consumer does not take each batch).
// Thread-safe.
class TaskQueue;

// Envelopes a task receives besides its queue's (see TaskQueue::AttachSource). Used only by
// the queue's consumer thread.
class EnvelopeSource {
 public:
  virtual ~EnvelopeSource() = default;
  // Appends what has arrived, never blocking.
  virtual void Drain(std::vector<Envelope>& out) = 0;
  // Blocks until something may have arrived, `wake_fd` is readable, or `timeout_ms` passes
  // (-1: no limit).
  virtual void Wait(int wake_fd, int timeout_ms) = 0;
};

// What a producer does while it waits for room or credit, on its own thread, with no lock held,
// every kWhileBlockedEvery of waiting: a spout keeps taking its acker's replies and expiring its
// timeouts while a slow consumer holds it up.
using WhileBlocked = std::function<void()>;
inline constexpr std::chrono::milliseconds kWhileBlockedEvery{10};

// Waits on `cv` (under `lock`) until `ready()`, running `while_blocked` (if given and non-empty)
// unlocked every kWhileBlockedEvery meanwhile.
template <class Ready>
void WaitRunning(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, Ready ready,
                 const WhileBlocked* while_blocked) {
  if (while_blocked == nullptr || !*while_blocked) {
    cv.wait(lock, ready);
    return;
  }
  while (!cv.wait_for(lock, kWhileBlockedEvery, ready)) {
    lock.unlock();
    (*while_blocked)();
    lock.lock();
  }
}

class TaskQueue {
 public:
  explicit TaskQueue(std::size_t capacity_tuples,
                     std::chrono::microseconds yield_before_sleep = std::chrono::microseconds(0));
  ~TaskQueue();
  TaskQueue(const TaskQueue&) = delete;
  TaskQueue& operator=(const TaskQueue&) = delete;

  // Pop also drains `source` and waits on it (producers then wake the consumer through an
  // eventfd instead of the condition variable). Call before the consumer starts; the source
  // must outlive the consumer's last Pop. What comes from it bypasses the capacity (its
  // senders' credits bound it).
  void AttachSource(EnvelopeSource* source);

  enum class WakeConsumer { kNow, kLater };
  // Blocks while full. Returns false (dropping the envelope) once the queue is closed. When
  // `spare` is given and a recycled buffer of the envelope's kind is available (rows for tuples,
  // messages for acks), moves it into *spare's rows or acks (emptied here, after the lock is
  // released).
  // kLater: see above; the caller must call Wake() or push with kNow before it blocks.
  // `while_blocked` (if given and non-empty) runs while it waits.
  bool Push(Envelope&& envelope, Envelope* spare = nullptr, WakeConsumer wake = WakeConsumer::kNow,
            const WhileBlocked* while_blocked = nullptr);
  // Wakes the consumer if it waits while something is queued (after kLater pushes).
  void Wake();
  // Never blocks (spare as Push's): for the network receiver, whose senders' credits already bound
  // what they send (runtime/process/remote_link.h), and which must not stall every other task
  // behind this one.
  bool PushWithoutWaiting(Envelope&& envelope, Envelope* spare = nullptr);
  // Takes back the envelopes in `inout` (processed ones, recycled), then blocks until something
  // is queued and moves everything queued into `inout`. Returns false once the queue is closed
  // and empty.
  bool PopAll(std::vector<Envelope>& inout);
  // As PopAll, but gives up at `deadline`: then returns true with `inout` empty.
  bool PopAllUntil(std::vector<Envelope>& inout, std::chrono::steady_clock::time_point deadline);
  void Close();
  // Whether something may be queued: a lock-free hint for a consumer that polls between other
  // work (a spout looking for its acker's replies). False negatives last until the next push.
  bool MaybeNonEmpty() const noexcept { return nonempty_.load(std::memory_order_relaxed); }

  struct Stats {
    std::size_t high_water_tuples = 0;   // most tuples ever queued at once
    uint64_t blocked_pushes = 0;         // pushes that had to wait for room
    uint64_t consumer_waits = 0;         // times the consumer found nothing and waited
    uint64_t wakeups = 0;                // times a push or Wake() woke the waiting consumer
    uint64_t yields = 0;                 // times the consumer found nothing and yielded
    uint64_t yields_ended_by_input = 0;  // of those, the ones input (or close) ended
    std::size_t queued_tuples = 0;       // tuples queued now
    std::size_t capacity_tuples = 0;     // the capacity producers block at
  };
  Stats GetStats() const;

 private:
  const std::size_t capacity_;
  const std::size_t wake_at_;  // kLater pushes wake a waiting consumer from this many tuples
  const std::chrono::steady_clock::duration yield_for_;
  mutable std::mutex mu_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
  std::vector<Envelope> items_;
  // Processed batch buffers, their rows not yet cleared (the producer that takes one does).
  std::vector<topology::RowBatch> spares_;
  std::atomic<std::size_t> spare_count_{0};  // spares_.size(), for Pop to read unlocked
  std::vector<std::vector<transport::AckMessage>> ack_spares_;  // the same, for ack messages
  std::atomic<std::size_t> ack_spare_count_{0};
  std::size_t tuples_ = 0;
  bool closed_ = false;
  bool consumer_waiting_ = false;
  bool consumer_yielding_ = false;  // waiting, but yielding: wake it through woken_
  std::atomic<bool> woken_{false};
  EnvelopeSource* source_ = nullptr;
  int wake_fd_ = -1;             // with a source: an eventfd the consumer waits on
  bool source_waiting_ = false;  // the consumer waits in source_->Wait (not on not_empty_)
  std::atomic<bool> nonempty_{false};
  int producers_waiting_ = 0;
  Stats stats_;

  // Moves a recycled buffer for an envelope of `kind` (rows, or ack messages) into `spare`.
  void TakeSpare(Envelope::Kind kind, Envelope& spare);
  static void ClearSpare(Envelope& spare) noexcept {
    spare.rows.Clear();
    spare.acks.clear();
  }
  bool Enqueue(std::unique_lock<std::mutex>& lock, Envelope&& envelope, Envelope* spare,
               WakeConsumer wake);
  // Notifies a waiting consumer if `due`; unlocks.
  void WakeIf(std::unique_lock<std::mutex>& lock, bool due);
  bool Pop(std::vector<Envelope>& inout,
           std::optional<std::chrono::steady_clock::time_point> deadline);
  bool PopWithSource(std::unique_lock<std::mutex>& lock, std::vector<Envelope>& inout,
                     std::optional<std::chrono::steady_clock::time_point> deadline);
  // The yield phase of a wait (lock held on entry and exit, nothing queued): returns true once a
  // producer would have woken the consumer, the source gave something (into `inout`) or the
  // queue closed; false when `deadline` or yield_for_ passed first.
  bool YieldForInput(std::unique_lock<std::mutex>& lock, std::vector<Envelope>& inout,
                     std::optional<std::chrono::steady_clock::time_point> deadline);
  // Moves everything queued into `inout` and unlocks (waking blocked producers).
  void TakeAll(std::unique_lock<std::mutex>& lock, std::vector<Envelope>& inout);
  void SignalWakeFd() const noexcept;
};

}  // namespace tempest::runtime

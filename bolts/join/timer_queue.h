#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tempest::bolts {

// The join states' cleanup timers, smallest first by T's operator<. Timers mostly arrive in order
// (event or processing time moves forward): those append to a FIFO that stays sorted, and the
// few that would break its order go to a min-heap. The front is the smaller of the two fronts
// (the FIFO's on a tie). Cheaper than one heap for the usual in-order case: a push and a pop are
// O(1). Single-threaded.
template <typename T>
class TimerQueue {
 public:
  void Push(const T& t) {
    if (head_ == fifo_.size() || !(t < fifo_.back())) {
      fifo_.push_back(t);
    } else {
      PushOutOfOrder(t);
    }
  }
  // For a timer known to be out of order (re-armed at a later time than some already queued).
  void PushOutOfOrder(const T& t) {
    heap_.push_back(t);
    std::push_heap(heap_.begin(), heap_.end(), Later);
  }

  // The smallest timer, nullptr when empty; valid until the next Push or Pop.
  const T* Front() const noexcept {
    const T* f = head_ < fifo_.size() ? &fifo_[head_] : nullptr;
    const T* h = heap_.empty() ? nullptr : &heap_.front();
    if (f == nullptr) return h;
    if (h == nullptr) return f;
    return *h < *f ? h : f;
  }
  // Removes `front`, which Front() returned.
  void Pop(const T* front) {
    if (!heap_.empty() && front == &heap_.front()) {
      std::pop_heap(heap_.begin(), heap_.end(), Later);
      heap_.pop_back();
      return;
    }
    if (++head_ == fifo_.size()) {
      fifo_.clear();
      head_ = 0;
    } else if (head_ >= kCompactAt && 2 * head_ >= fifo_.size()) {
      // Drop the consumed prefix once it is most of the FIFO: amortised O(1), bounded memory.
      fifo_.erase(fifo_.begin(), fifo_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

 private:
  static constexpr std::size_t kCompactAt = 1024;
  static bool Later(const T& a, const T& b) noexcept { return b < a; }

  std::vector<T> fifo_;
  std::size_t head_ = 0;
  std::vector<T> heap_;  // std::push_heap with `Later`: the front is the smallest
};

}  // namespace tempest::bolts

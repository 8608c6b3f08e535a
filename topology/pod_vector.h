#pragma once

// RowBatch's growable buffers (internal to Tempest).

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace tempest::topology {

// A growable array of a trivially copyable type, as std::vector but for the per-row path of a
// batch: Extend(n) hands out n slots after one capacity check, the size is a count (no division
// by an odd element size), and growing is a call out of line. With std::vector, GCC inlined the
// reallocation into every append, which then saved and restored six registers per row.
template <class T>
class PodVector {
  static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= alignof(std::max_align_t));

 public:
  PodVector() = default;
  PodVector(const PodVector& other) { Append(other.begin(), other.end()); }
  PodVector& operator=(const PodVector& other) {
    if (this != &other) {
      size_ = 0;
      Append(other.begin(), other.end());
    }
    return *this;
  }
  PodVector(PodVector&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  PodVector& operator=(PodVector&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    return *this;
  }
  ~PodVector() { std::free(data_); }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t capacity() const noexcept { return capacity_; }
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T& back() noexcept { return data_[size_ - 1]; }
  const T& back() const noexcept { return data_[size_ - 1]; }

  void clear() noexcept { size_ = 0; }
  void reserve(std::size_t n) {
    if (n > capacity_) Grow(n);
  }
  // Drops the elements from `n` on (n <= size()).
  void Truncate(std::size_t n) noexcept { size_ = n; }
  // n more elements, uninitialised: the caller writes them all.
  T* Extend(std::size_t n) {
    if (capacity_ - size_ < n) [[unlikely]]
      Grow(size_ + n);
    T* p = data_ + size_;
    size_ += n;
    return p;
  }
  // One more element, value-initialised (zeroed), as std::vector's emplace_back().
  T& emplace_back() {
    T* p = Extend(1);
    std::memset(static_cast<void*>(p), 0, sizeof(T));
    return *p;
  }
  void push_back(const T& v) {
    const T copy = v;  // `v` may be one of ours, moved by the growth
    *Extend(1) = copy;
  }
  // Copies [first, last) of another array to the end.
  void Append(const T* first, const T* last) {
    const auto n = static_cast<std::size_t>(last - first);
    if (n != 0) std::memcpy(static_cast<void*>(Extend(n)), first, n * sizeof(T));
  }

 private:
  [[gnu::noinline]] void Grow(std::size_t at_least) {
    const std::size_t capacity = std::max({at_least, 2 * capacity_, 64 / sizeof(T) + 1});
    void* p = std::realloc(data_, capacity * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
    capacity_ = capacity;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace tempest::topology

#pragma once

#include <cstdint>
#include <limits>

namespace tempest::topology {

// int64 arithmetic that clamps at the limits instead of wrapping: event times near
// INT64_MIN/MAX, and the config sums that guard against deadlocks (a sum that wrapped would
// pass a check it should fail).
inline int64_t SaturatingAdd(int64_t a, int64_t b) noexcept {
  int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

inline int64_t SaturatingSub(int64_t a, int64_t b) noexcept {
  int64_t difference = 0;
  if (!__builtin_sub_overflow(a, b, &difference)) return difference;
  return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

inline int64_t SaturatingNegate(int64_t a) noexcept { return SaturatingSub(0, a); }

inline int64_t SaturatingMul(int64_t a, int64_t b) noexcept {
  int64_t product = 0;
  if (!__builtin_mul_overflow(a, b, &product)) return product;
  return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min()
                            : std::numeric_limits<int64_t>::max();
}

}  // namespace tempest::topology

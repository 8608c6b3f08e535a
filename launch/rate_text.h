#pragma once

#include <fmt/format.h>

#include <string>

namespace tempest::launch {

// A rate as the live and progress lines show it: 2.00M/s, 500.0k/s, 998/s.
inline std::string RateText(double per_second) {
  if (per_second >= 1e6) return fmt::format("{:.2f}M/s", per_second / 1e6);
  if (per_second >= 1e3) return fmt::format("{:.1f}k/s", per_second / 1e3);
  return fmt::format("{:.0f}/s", per_second);
}

}  // namespace tempest::launch

#include "launch/input_progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "topology/input_gauges.h"

namespace tempest::launch {

InputProgress InputProgress::Of(const std::vector<runtime::TaskSnapshot>& tasks) {
  InputProgress p;
  for (const runtime::TaskSnapshot& t : tasks) {
    for (const auto& [name, value] : t.gauges) {
      if (name == topology::kInputBytesReadGauge) p.read += value;
      if (name == topology::kInputBytesGauge) p.total += value;
    }
  }
  p.read = std::min(p.read, p.total);
  return p;
}

std::string InputProgress::Text(double elapsed) const {
  if (total == 0) return "";
  if (read >= total) return "100% read";
  const double share = static_cast<double>(read) / static_cast<double>(total);
  const auto percent = static_cast<int>(share * 100);  // 100% only when all is read
  if (read == 0 || elapsed <= 0) return fmt::format("{}% read", percent);
  return fmt::format("{}% read, ETA {}", percent, DurationText(elapsed * (1 - share) / share));
}

std::string InputProgress::Bar(int width) const {
  const int filled = total == 0
                         ? 0
                         : static_cast<int>(static_cast<double>(width) * static_cast<double>(read) /
                                            static_cast<double>(total));
  return "[" + std::string(static_cast<std::size_t>(filled), '#') +
         std::string(static_cast<std::size_t>(width - filled), ' ') + "]";
}

std::string DurationText(double seconds) {
  const auto s = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, s % 3600 / 60);
}

}  // namespace tempest::launch

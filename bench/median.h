#pragma once
// The median the benchmarks report over their rounds. Header-only, for bench/ only.

#include <algorithm>
#include <vector>

namespace tempest::bench {

// The middle value (the mean of the two middle ones for an even count); 0 for none.
inline double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return (v[(v.size() - 1) / 2] + v[v.size() / 2]) / 2;
}

}  // namespace tempest::bench

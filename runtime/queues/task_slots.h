#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace tempest::runtime {

// Numbers a set of task ids densely (slots 0..size()-1, in ascending task order), in memory
// linear in the number of runs of consecutive ids rather than in the largest id: a task keeps
// per-destination state only for the tasks it sends to, however many tasks the topology has.
// A component's tasks are consecutive, so a task's destinations form a few runs and a lookup
// scans (or, past a handful, bisects) them. Immutable after construction.
class TaskSlots {
 public:
  TaskSlots() = default;
  // `tasks` ascending, without duplicates.
  explicit TaskSlots(const std::vector<int>& tasks) {
    for (int t : tasks) {
      if (runs_.empty() || t != runs_.back().first + runs_.back().count) {
        runs_.push_back(Run{t, 0, static_cast<int>(size_)});
      }
      ++runs_.back().count;
      ++size_;
    }
  }

  std::size_t size() const noexcept { return size_; }
  // The slot of `task`, or -1 when it is not in the set.
  int Of(int task) const noexcept {
    if (runs_.size() <= kScanRuns) {
      for (const Run& r : runs_) {
        if (Contains(r, task)) return r.slot + (task - r.first);
      }
      return -1;
    }
    auto it = std::upper_bound(runs_.begin(), runs_.end(), task,
                               [](int t, const Run& r) { return t < r.first; });
    if (it == runs_.begin()) return -1;
    --it;
    return Contains(*it, task) ? it->slot + (task - it->first) : -1;
  }

 private:
  struct Run {
    int first;  // task id
    int count;
    int slot;  // of `first`
  };
  static constexpr std::size_t kScanRuns = 4;
  static bool Contains(const Run& r, int task) noexcept {
    return static_cast<unsigned>(task) - static_cast<unsigned>(r.first) <
           static_cast<unsigned>(r.count);
  }

  std::vector<Run> runs_;
  std::size_t size_ = 0;
};

}  // namespace tempest::runtime

#include "runtime/routing/grouper.h"

namespace tempest::runtime {

// Shuffle among the subscriber's tasks in the emitter's own worker process (no serialisation,
// no network); when it has none there, shuffle among all of them.
std::unique_ptr<Grouper> MakeLocalOrShuffleGrouper(GrouperInput input) {
  std::vector<int> local;
  if (input.is_local) {
    for (int task : input.target_tasks) {
      if (input.is_local(task)) local.push_back(task);
    }
  }
  if (!local.empty()) input.target_tasks = std::move(local);
  return MakeShuffleGrouper(std::move(input));
}

}  // namespace tempest::runtime

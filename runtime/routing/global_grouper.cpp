#include <algorithm>

#include "runtime/routing/grouper.h"

namespace tempest::runtime {
namespace {

// The whole stream goes to the subscriber's task with the lowest id (Storm).
class GlobalGrouper final : public Grouper {
 public:
  explicit GlobalGrouper(GrouperInput input)
      : task_(*std::min_element(input.target_tasks.begin(), input.target_tasks.end())) {}

  void Choose(const topology::Values&, std::vector<int>& out) override { out.push_back(task_); }
  bool ReadsValues() const noexcept override { return false; }

 private:
  int task_;
};

}  // namespace

std::unique_ptr<Grouper> MakeGlobalGrouper(GrouperInput input) {
  return std::make_unique<GlobalGrouper>(std::move(input));
}

}  // namespace tempest::runtime

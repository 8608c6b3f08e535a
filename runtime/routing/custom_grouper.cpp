#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "runtime/routing/grouper.h"

namespace tempest::runtime {
namespace {

// Runs a user CustomStreamGrouping; a chosen task that is not a subscriber is an error rather
// than a silently lost tuple.
class CustomGrouper final : public Grouper {
 public:
  CustomGrouper(const topology::CustomGroupingFactory& factory, GrouperInput input)
      : grouping_(factory()),
        emitting_task_(input.context->GetThisTaskId()),
        targets_(std::move(input.target_tasks)) {
    if (!grouping_) {
      throw std::invalid_argument(
          fmt::format("the custom grouping factory of stream [{}] of component [{}] returned null",
                      input.stream.stream, input.stream.component));
    }
    grouping_->Prepare(*input.context, input.stream, targets_);
  }

  void Choose(const topology::Values& values, std::vector<int>& out) override {
    const std::size_t first = out.size();
    grouping_->ChooseTasks(emitting_task_, values, out);
    for (std::size_t i = first; i < out.size(); ++i) {
      if (!std::binary_search(targets_.begin(), targets_.end(), out[i])) {
        throw std::invalid_argument(
            fmt::format("custom grouping chose task {}, which is not a subscriber (tasks: [{}])",
                        out[i], fmt::join(targets_, ", ")));
      }
    }
  }

 private:
  std::unique_ptr<topology::CustomStreamGrouping> grouping_;
  int emitting_task_;
  std::vector<int> targets_;
};

}  // namespace

std::unique_ptr<Grouper> MakeCustomGrouper(const topology::CustomGroupingFactory& factory,
                                           GrouperInput input) {
  return std::make_unique<CustomGrouper>(factory, std::move(input));
}

}  // namespace tempest::runtime

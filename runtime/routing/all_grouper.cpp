#include "runtime/routing/grouper.h"

namespace tempest::runtime {
namespace {

// Every subscribing task gets a copy.
class AllGrouper final : public Grouper {
 public:
  explicit AllGrouper(GrouperInput input) : targets_(std::move(input.target_tasks)) {}

  void Choose(const topology::Values&, std::vector<int>& out) override {
    out.insert(out.end(), targets_.begin(), targets_.end());
  }
  bool ReadsValues() const noexcept override { return false; }

 private:
  std::vector<int> targets_;
};

}  // namespace

std::unique_ptr<Grouper> MakeAllGrouper(GrouperInput input) {
  return std::make_unique<AllGrouper>(std::move(input));
}

}  // namespace tempest::runtime

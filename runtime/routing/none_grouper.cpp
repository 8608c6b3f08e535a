#include <random>

#include "runtime/routing/grouper.h"

namespace tempest::runtime {
namespace {

// "Don't care" (Storm's NoneGrouper): a pseudo-random task per tuple, seeded per run.
class NoneGrouper final : public Grouper {
 public:
  explicit NoneGrouper(GrouperInput input)
      : targets_(std::move(input.target_tasks)), rng_(input.seed) {}

  void Choose(const topology::Values&, std::vector<int>& out) override {
    out.push_back(targets_[rng_() % targets_.size()]);
  }
  bool ReadsValues() const noexcept override { return false; }

 private:
  std::vector<int> targets_;
  std::minstd_rand rng_;
};

}  // namespace

std::unique_ptr<Grouper> MakeNoneGrouper(GrouperInput input) {
  return std::make_unique<NoneGrouper>(std::move(input));
}

}  // namespace tempest::runtime

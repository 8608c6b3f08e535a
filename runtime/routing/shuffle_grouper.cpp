#include <algorithm>
#include <random>

#include "runtime/routing/grouper.h"

namespace tempest::runtime {
namespace {

// Storm's ShuffleGrouping: the sorted targets, shuffled once, then visited round-robin. Every
// run of n emits reaches each of the n tasks exactly once.
class ShuffleGrouper final : public Grouper {
 public:
  explicit ShuffleGrouper(GrouperInput input) : order_(std::move(input.target_tasks)) {
    std::mt19937_64 rng(input.seed);
    std::shuffle(order_.begin(), order_.end(), rng);
  }

  void Choose(const topology::Values&, std::vector<int>& out) override {
    out.push_back(order_[next_]);
    if (++next_ == order_.size()) next_ = 0;
  }
  bool ReadsValues() const noexcept override { return false; }

 private:
  std::vector<int> order_;
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<Grouper> MakeShuffleGrouper(GrouperInput input) {
  return std::make_unique<ShuffleGrouper>(std::move(input));
}

}  // namespace tempest::runtime

#include "runtime/routing/grouper.h"
#include "topology/value_hash.h"

namespace tempest::runtime {
namespace {

// Storm's PartialKeyGrouping ("power of both choices"): each key has two candidate tasks from
// two independent hashes; a tuple goes to whichever of the two this emitter has sent fewer
// tuples (ties: the first). A hot key is so split over two tasks. Unlike Storm, the second
// choice is drawn from the other n-1 tasks, so with n >= 2 the two candidates always differ.
class PartialKeyGrouper final : public Grouper {
 public:
  PartialKeyGrouper(const std::vector<std::string>& fields, GrouperInput input)
      : targets_(std::move(input.target_tasks)),
        key_(KeyIndices(*input.source_fields, fields)),
        sent_(targets_.size(), 0) {}

  void Choose(const topology::Values& values, std::vector<int>& out) override {
    const std::size_t n = targets_.size();
    std::size_t pick = topology::StableHash(values, key_) % n;
    if (n > 1) {
      const std::size_t second =
          (pick + 1 + topology::StableHash(values, key_, kSecondSeed) % (n - 1)) % n;
      if (sent_[second] < sent_[pick]) pick = second;
    }
    ++sent_[pick];
    out.push_back(targets_[pick]);
  }

 private:
  static constexpr uint64_t kSecondSeed = 0x5BD1E995;
  std::vector<int> targets_;
  std::vector<std::size_t> key_;
  std::vector<uint64_t> sent_;
};

}  // namespace

std::unique_ptr<Grouper> MakePartialKeyGrouper(const std::vector<std::string>& fields,
                                               GrouperInput input) {
  return std::make_unique<PartialKeyGrouper>(fields, std::move(input));
}

}  // namespace tempest::runtime

#include "runtime/routing/grouper.h"
#include "topology/value_hash.h"

namespace tempest::runtime {
namespace {

// Same key values, same task: StableHash of the key values (never the field names) modulo the
// task count, over the sorted target tasks. The hash is stable across processes and machines.
class FieldsGrouper final : public Grouper {
 public:
  FieldsGrouper(const std::vector<std::string>& fields, GrouperInput input)
      : targets_(std::move(input.target_tasks)), key_(KeyIndices(*input.source_fields, fields)) {}

  void Choose(const topology::Values& values, std::vector<int>& out) override {
    out.push_back(targets_[topology::StableHash(values, key_) % targets_.size()]);
  }

 private:
  std::vector<int> targets_;
  std::vector<std::size_t> key_;
};

}  // namespace

std::unique_ptr<Grouper> MakeFieldsGrouper(const std::vector<std::string>& fields,
                                           GrouperInput input) {
  return std::make_unique<FieldsGrouper>(fields, std::move(input));
}

}  // namespace tempest::runtime

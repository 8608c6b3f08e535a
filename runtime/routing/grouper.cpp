#include "runtime/routing/grouper.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace tempest::runtime {

using topology::GroupingType;

std::vector<std::size_t> KeyIndices(const topology::Fields& fields,
                                    const std::vector<std::string>& names) {
  std::vector<std::size_t> out;
  out.reserve(names.size());
  for (const std::string& n : names) out.push_back(fields.Index(n));
  return out;
}

std::unique_ptr<Grouper> MakeGrouper(const topology::GroupingSpec& spec, GrouperInput input) {
  switch (spec.type) {
    case GroupingType::kShuffle:
      return MakeShuffleGrouper(std::move(input));
    case GroupingType::kFields:
      return MakeFieldsGrouper(spec.fields, std::move(input));
    case GroupingType::kAll:
      return MakeAllGrouper(std::move(input));
    case GroupingType::kGlobal:
      return MakeGlobalGrouper(std::move(input));
    case GroupingType::kNone:
      return MakeNoneGrouper(std::move(input));
    case GroupingType::kLocalOrShuffle:
      return MakeLocalOrShuffleGrouper(std::move(input));
    case GroupingType::kPartialKey:
      return MakePartialKeyGrouper(spec.fields, std::move(input));
    case GroupingType::kCustom:
      return MakeCustomGrouper(spec.custom, std::move(input));
    case GroupingType::kDirect:
      break;
  }
  throw std::invalid_argument(
      fmt::format("a DIRECT grouping of stream [{}] of component [{}] has "
                  "no grouper: direct emits name their task",
                  input.stream.stream, input.stream.component));
}

int OnlyTask(const topology::GroupingSpec& spec, const std::vector<int>& target_tasks) {
  switch (spec.type) {
    case GroupingType::kGlobal:
      return target_tasks.empty() ? -1
                                  : *std::min_element(target_tasks.begin(), target_tasks.end());
    case GroupingType::kShuffle:
    case GroupingType::kFields:
    case GroupingType::kAll:
    case GroupingType::kNone:
    case GroupingType::kLocalOrShuffle:
    case GroupingType::kPartialKey:
      return target_tasks.size() == 1 ? target_tasks.front() : -1;
    case GroupingType::kCustom:
    case GroupingType::kDirect:
      return -1;
  }
  return -1;
}

}  // namespace tempest::runtime

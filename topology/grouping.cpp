#include "topology/grouping.h"

namespace tempest::topology {

std::string_view GroupingTypeName(GroupingType type) noexcept {
  switch (type) {
    case GroupingType::kShuffle:
      return "SHUFFLE";
    case GroupingType::kFields:
      return "FIELDS";
    case GroupingType::kAll:
      return "ALL";
    case GroupingType::kGlobal:
      return "GLOBAL";
    case GroupingType::kNone:
      return "NONE";
    case GroupingType::kDirect:
      return "DIRECT";
    case GroupingType::kLocalOrShuffle:
      return "LOCAL_OR_SHUFFLE";
    case GroupingType::kPartialKey:
      return "PARTIAL_KEY";
    case GroupingType::kCustom:
      return "CUSTOM";
  }
  return "?";
}

}  // namespace tempest::topology

#include "topology/tuple.h"

#include <fmt/format.h>

namespace tempest::topology {
namespace {
const StreamSchema& EmptySchema() {
  static const StreamSchema kEmpty{};
  return kEmpty;
}
}  // namespace

const Fields& Tuple::GetFields() const noexcept {
  return *(schema_ != nullptr ? schema_ : &EmptySchema())->fields;
}
const std::string& Tuple::GetSourceComponent() const noexcept {
  return (schema_ != nullptr ? schema_ : &EmptySchema())->component;
}
const std::string& Tuple::GetSourceStreamId() const noexcept {
  return (schema_ != nullptr ? schema_ : &EmptySchema())->stream;
}

GlobalStreamId Tuple::GetSourceGlobalStreamId() const {
  return GlobalStreamId{GetSourceComponent(), GetSourceStreamId()};
}

const Value& Tuple::GetValueByField(std::string_view field) const {
  return values_.at(GetFields().Index(field));
}

bool Tuple::Contains(std::string_view field) const noexcept { return GetFields().Contains(field); }

Values Tuple::Select(const Fields& fields) const {
  Values out;
  out.reserve(fields.size());
  for (const std::string& f : fields) out.push_back(GetValueByField(f));
  return out;
}

std::string Tuple::ToString() const {
  return fmt::format("{}:{}[{}] {}", GetSourceComponent(), GetSourceStreamId(), source_task_,
                     topology::ToString(values_));
}

}  // namespace tempest::topology

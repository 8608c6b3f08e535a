#include "topology/value.h"

#include <fmt/format.h>

#include <stdexcept>

#include "topology/json.h"

namespace tempest::topology {

std::string_view ValueTypeName(ValueType type) noexcept {
  switch (type) {
    case ValueType::kNull:
      return "null";
    case ValueType::kBool:
      return "bool";
    case ValueType::kInt:
      return "int";
    case ValueType::kDouble:
      return "double";
    case ValueType::kString:
      return "string";
    case ValueType::kBytes:
      return "bytes";
    case ValueType::kList:
      return "list";
    case ValueType::kMap:
      return "map";
  }
  return "?";
}

Value::Value(List list) : rep_(std::make_shared<const List>(std::move(list))) {}
Value::Value(Map map) : rep_(std::make_shared<const Map>(std::move(map))) {}

void Value::ThrowType(ValueType wanted) const {
  throw std::invalid_argument(fmt::format("value {} is a {}, not a {}", ToString(),
                                          ValueTypeName(type()), ValueTypeName(wanted)));
}

bool Value::AsBool() const {
  if (const bool* b = std::get_if<bool>(&rep_)) return *b;
  ThrowType(ValueType::kBool);
}

int64_t Value::AsInt() const {
  if (const int64_t* i = std::get_if<int64_t>(&rep_)) return *i;
  ThrowType(ValueType::kInt);
}

double Value::AsDouble() const {
  if (const double* d = std::get_if<double>(&rep_)) return *d;
  if (const int64_t* i = std::get_if<int64_t>(&rep_)) return static_cast<double>(*i);
  ThrowType(ValueType::kDouble);
}

const std::string& Value::AsString() const {
  if (const std::string* s = std::get_if<std::string>(&rep_)) return *s;
  ThrowType(ValueType::kString);
}

const Bytes& Value::AsBytes() const {
  if (const Bytes* b = std::get_if<Bytes>(&rep_)) return *b;
  ThrowType(ValueType::kBytes);
}

const List& Value::AsList() const {
  if (const auto* l = std::get_if<std::shared_ptr<const List>>(&rep_)) return **l;
  ThrowType(ValueType::kList);
}

const Map& Value::AsMap() const {
  if (const auto* m = std::get_if<std::shared_ptr<const Map>>(&rep_)) return **m;
  ThrowType(ValueType::kMap);
}

const Value* Value::Find(std::string_view key) const noexcept {
  const auto* m = std::get_if<std::shared_ptr<const Map>>(&rep_);
  if (m == nullptr) return nullptr;
  for (const auto& [k, v] : **m) {
    const std::string* s = k.IfString();
    if (s != nullptr && *s == key) return &v;
  }
  return nullptr;
}

bool operator==(const Value& a, const Value& b) noexcept {
  if (a.rep_.index() != b.rep_.index()) return false;
  switch (a.type()) {
    case ValueType::kList:
      return a.AsList() == b.AsList();
    case ValueType::kMap:
      return a.AsMap() == b.AsMap();
    case ValueType::kNull:
    case ValueType::kBool:
    case ValueType::kInt:
    case ValueType::kDouble:
    case ValueType::kString:
    case ValueType::kBytes:
      return a.rep_ == b.rep_;
  }
  return false;
}

std::string Value::ToString() const { return ToJson(*this); }

std::string ToString(const Values& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendJson(out, values[i]);
  }
  out.push_back(']');
  return out;
}

}  // namespace tempest::topology

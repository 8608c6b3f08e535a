#pragma once

// Values: the fields of a tuple (part of Tempest's public API, tempest/tempest.h).

#include <boost/container/small_vector.hpp>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace tempest::topology {

class Value;

// A list value; shared and immutable once inside a Value, so copying a Value is cheap.
using List = std::vector<Value>;
// A map value: key/value pairs in insertion order (msgpack maps may have any key type).
using Map = std::vector<std::pair<Value, Value>>;

// Raw bytes, kept apart from strings so that msgpack's bin and str types round-trip.
struct Bytes {
  std::string data;
  friend bool operator==(const Bytes&, const Bytes&) = default;
};

// The kinds of Value, in the order of Value's variant alternatives.
enum class ValueType { kNull, kBool, kInt, kDouble, kString, kBytes, kList, kMap };

std::string_view ValueTypeName(ValueType type) noexcept;

// One field of a tuple: null, bool, int64, double, string, bytes, list or map (msgpack's types).
// Every integer type is normalised to int64, so equal integers are equal whatever their width.
// Value is a nothrow-movable value type; lists and maps are shared immutable payloads.
// Accessors of the wrong type throw std::invalid_argument naming both types.
class Value {
 public:
  Value() noexcept = default;
  Value(std::nullptr_t) noexcept {}
  Value(bool b) noexcept : rep_(b) {}
  template <std::integral T>
  requires(!std::same_as<T, bool> && !std::same_as<T, char>) Value(T i)
  noexcept : rep_(static_cast<int64_t>(i)) {}
  Value(double d) noexcept : rep_(d) {}
  Value(float f) noexcept : rep_(static_cast<double>(f)) {}
  Value(std::string s) noexcept : rep_(std::move(s)) {}
  Value(std::string_view s) : rep_(std::string(s)) {}
  Value(const char* s) : rep_(std::string(s)) {}
  Value(Bytes b) noexcept : rep_(std::move(b)) {}
  Value(List list);
  Value(Map map);

  ValueType type() const noexcept { return static_cast<ValueType>(rep_.index()); }
  bool IsNull() const noexcept { return type() == ValueType::kNull; }
  bool IsString() const noexcept { return type() == ValueType::kString; }

  bool AsBool() const;
  int64_t AsInt() const;
  // An int is widened; any other type throws.
  double AsDouble() const;
  const std::string& AsString() const;
  const Bytes& AsBytes() const;
  const List& AsList() const;
  const Map& AsMap() const;

  // Pointer to the payload when the type matches, else nullptr. Never throws.
  const int64_t* IfInt() const noexcept { return std::get_if<int64_t>(&rep_); }
  const std::string* IfString() const noexcept { return std::get_if<std::string>(&rep_); }
  const double* IfDouble() const noexcept { return std::get_if<double>(&rep_); }

  // Makes this a string value equal to `s`, reusing the buffer when it already holds a string
  // (decoders that refill the same tuples allocate nothing in the steady state).
  void AssignString(std::string_view s) {
    if (auto* str = std::get_if<std::string>(&rep_)) {
      str->assign(s.data(), s.size());
    } else {
      rep_.emplace<std::string>(s);
    }
  }

  // For a map value: the value under a string key, else nullptr (also for non-maps).
  const Value* Find(std::string_view key) const noexcept;

  // Compact JSON (topology/json.h), for logs and messages.
  std::string ToString() const;

  friend bool operator==(const Value& a, const Value& b) noexcept;

 private:
  using Rep = std::variant<std::monostate, bool, int64_t, double, std::string, Bytes,
                           std::shared_ptr<const List>, std::shared_ptr<const Map>>;
  [[noreturn]] void ThrowType(ValueType wanted) const;

  Rep rep_;
};

static_assert(std::is_nothrow_move_constructible_v<Value>);
static_assert(std::is_nothrow_move_assignable_v<Value>);

// The values of one tuple. Up to four live inline, so typical tuples allocate nothing.
using Values = boost::container::small_vector<Value, 4>;

std::string ToString(const Values& values);

}  // namespace tempest::topology

namespace tempest {
using topology::Bytes;
using topology::List;
using topology::Map;
using topology::ToString;
using topology::Value;
using topology::Values;
using topology::ValueType;
using topology::ValueTypeName;
}  // namespace tempest

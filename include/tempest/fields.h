#pragma once

// Field names and stream identities (part of Tempest's public API, tempest/tempest.h).

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tempest::topology {

// The ordered field names of a stream (Storm's Fields). Immutable once built and shared by every
// tuple of the stream; safe to read from any thread. Duplicate names are rejected.
class Fields {
 public:
  Fields() = default;
  Fields(std::initializer_list<std::string> names);
  explicit Fields(std::vector<std::string> names);

  std::size_t size() const noexcept { return names_.size(); }
  bool empty() const noexcept { return names_.empty(); }
  const std::string& Get(std::size_t index) const { return names_.at(index); }
  const std::vector<std::string>& names() const noexcept { return names_; }
  auto begin() const noexcept { return names_.begin(); }
  auto end() const noexcept { return names_.end(); }

  std::optional<std::size_t> Find(std::string_view name) const noexcept;
  bool Contains(std::string_view name) const noexcept { return Find(name).has_value(); }
  // Throws std::invalid_argument naming the field and the declared fields.
  std::size_t Index(std::string_view name) const;

  // "[a, b, c]", as Storm prints Fields.
  std::string ToString() const;

  friend bool operator==(const Fields&, const Fields&) = default;

 private:
  std::vector<std::string> names_;
};

inline constexpr const char* kDefaultStream = "default";

// Identifies a stream globally: the component that declares it and the stream's id.
struct GlobalStreamId {
  std::string component;
  std::string stream = kDefaultStream;
  friend bool operator==(const GlobalStreamId&, const GlobalStreamId&) = default;
  friend auto operator<=>(const GlobalStreamId&, const GlobalStreamId&) = default;
};

// Everything tuples of one declared stream share: who emits it, its id, its fields, and whether
// it is a direct stream. Immutable; owned by the topology (or whoever builds tuples) and borrowed
// by every tuple of the stream, so it must outlive them.
struct StreamSchema {
  std::string component;
  std::string stream = kDefaultStream;
  std::shared_ptr<const Fields> fields = std::make_shared<const Fields>();
  bool direct = false;
};

}  // namespace tempest::topology

namespace tempest {
using topology::Fields;
using topology::GlobalStreamId;
using topology::kDefaultStream;
using topology::StreamSchema;
}  // namespace tempest

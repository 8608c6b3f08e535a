#include "topology/fields.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

namespace tempest::topology {

Fields::Fields(std::initializer_list<std::string> names)
    : Fields(std::vector<std::string>(names)) {}

Fields::Fields(std::vector<std::string> names) : names_(std::move(names)) {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (std::find(names_.begin(), names_.begin() + static_cast<std::ptrdiff_t>(i), names_[i]) !=
        names_.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw std::invalid_argument(
          fmt::format("duplicate field '{}' in fields {}", names_[i], ToString()));
    }
  }
}

std::optional<std::size_t> Fields::Find(std::string_view name) const noexcept {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return i;
  }
  return std::nullopt;
}

std::size_t Fields::Index(std::string_view name) const {
  if (auto i = Find(name)) return *i;
  throw std::invalid_argument(fmt::format("field '{}' does not exist in {}", name, ToString()));
}

std::string Fields::ToString() const { return fmt::format("[{}]", fmt::join(names_, ", ")); }

}  // namespace tempest::topology

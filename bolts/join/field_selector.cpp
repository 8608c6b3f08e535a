#include "bolts/join/field_selector.h"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>

namespace tempest::bolts {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string> SplitPath(std::string_view field, std::string_view descriptor) {
  std::vector<std::string> out;
  for (;;) {
    const std::size_t dot = field.find('.');
    const std::string_view step = Trim(field.substr(0, dot));
    if (step.empty()) {
      throw std::invalid_argument(
          fmt::format("field descriptor \"{}\" has an empty field name", descriptor));
    }
    out.emplace_back(step);
    if (dot == std::string_view::npos) return out;
    field.remove_prefix(dot + 1);
  }
}

// " AS alias" at the end (case-insensitive AS), if any: returns the alias, trims `text`.
std::string TakeAlias(std::string_view& text) {
  const std::string_view t = Trim(text);
  for (std::size_t i = t.size(); i-- > 1;) {
    if (!std::isspace(static_cast<unsigned char>(t[i - 1]))) continue;
    const std::string_view rest = t.substr(i);
    if (rest.size() > 3 && EqualsIgnoreCase(rest.substr(0, 2), "as") &&
        std::isspace(static_cast<unsigned char>(rest[2]))) {
      const std::string_view alias = Trim(rest.substr(3));
      if (!alias.empty() && alias.find_first_of(" \t") == std::string_view::npos) {
        text = Trim(t.substr(0, i));
        return std::string(alias);
      }
    }
  }
  return {};
}

}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

FieldSelector FieldSelector::Parse(std::string_view descriptor) {
  std::string_view text = descriptor;
  const std::string alias = TakeAlias(text);
  text = Trim(text);
  FieldSelector s;
  const std::size_t colon = text.find(':');
  std::string_view field = text;
  if (colon != std::string_view::npos) {
    s.name = std::string(Trim(text.substr(0, colon)));
    field = text.substr(colon + 1);
  }
  s.path = SplitPath(field, descriptor);
  // Storm: a leading ':' names no input, and the output name drops it.
  s.output_name = !alias.empty() ? alias
                  : colon == 0   ? std::string(Trim(field))
                                 : std::string(text);
  return s;
}

FieldSelector FieldSelector::ForInput(std::string name, std::string_view descriptor) {
  if (descriptor.find(':') != std::string_view::npos) {
    throw std::invalid_argument(fmt::format(
        "Not expecting stream qualifier ':' in '{}'. Stream name '{}' is implicit in this context",
        descriptor, name));
  }
  FieldSelector s = Parse(descriptor);
  s.name = std::move(name);
  return s;
}

std::vector<FieldSelector> ParseSelect(std::string_view select) {
  std::vector<FieldSelector> out;
  for (;;) {
    const std::size_t comma = select.find(',');
    out.push_back(FieldSelector::Parse(select.substr(0, comma)));
    if (comma == std::string_view::npos) return out;
    select.remove_prefix(comma + 1);
  }
}

const topology::Value* LookupPath(const topology::Tuple& tuple, int index,
                                  const std::vector<std::string>& path) noexcept {
  if (index < 0 || static_cast<std::size_t>(index) >= tuple.size()) return nullptr;
  return LookupNested(tuple.GetValues()[static_cast<std::size_t>(index)], path);
}

const topology::Value* LookupPathInRow(const topology::RowRef& row, int index,
                                       const std::vector<std::string>& path,
                                       topology::Value& scratch) {
  if (index < 0 || static_cast<std::size_t>(index) >= row.size()) return nullptr;
  const auto field = static_cast<std::size_t>(index);
  if (const topology::Value* side = row.SideValue(field)) return LookupNested(*side, path);
  if (path.size() > 1) return nullptr;  // only a map has a nested path
  row.LoadValue(field, scratch);
  return &scratch;
}

const topology::Value* LookupNested(const topology::Value& root,
                                    const std::vector<std::string>& path) noexcept {
  const topology::Value* v = &root;
  for (std::size_t i = 1; i < path.size(); ++i) {
    if (v->type() != topology::ValueType::kMap) return nullptr;
    const topology::Value* next = nullptr;
    for (const auto& [k, val] : v->AsMap()) {
      if (k.IsString() && k.AsString() == path[i]) {
        next = &val;
        break;
      }
    }
    if (next == nullptr) return nullptr;
    v = next;
  }
  return v;
}

}  // namespace tempest::bolts

#include "topology/config_node.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tempest::topology {
namespace {

std::string Format(const SourceMark& mark, const std::string& path, const std::string& message) {
  std::string out;
  if (!mark.file.empty()) {
    out = mark.line > 0 ? fmt::format("{}:{}:{}: ", mark.file, mark.line, mark.column)
                        : fmt::format("{}: ", mark.file);
  }
  if (!path.empty()) out += path + ": ";
  return out + message;
}

bool IsNullText(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::optional<bool> BoolText(std::string_view s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

std::optional<int64_t> IntText(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::string_view digits = s;
  if (digits.front() == '+') digits.remove_prefix(1);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}

std::optional<double> DoubleText(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s == ".inf" || s == "+.inf") return HUGE_VAL;
  if (s == "-.inf") return -HUGE_VAL;
  if (s == ".nan") return std::nan("");
  std::string_view digits = s;
  if (digits.front() == '+') digits.remove_prefix(1);
  double v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

const ConfigNode* ConfigNode::Find(std::string_view key) const noexcept {
  for (const auto& [k, v] : members) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string ConfigNode::Describe() const {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kSequence:
      return "a list";
    case Kind::kMap:
      return "a map";
    case Kind::kScalar:
      break;
  }
  const Value v = ToValue();
  switch (v.type()) {
    case ValueType::kNull:
      return "null";
    case ValueType::kBool:
      return fmt::format("a boolean {}", scalar);
    case ValueType::kInt:
      return fmt::format("an integer {}", scalar);
    case ValueType::kDouble:
      return fmt::format("a number {}", scalar);
    case ValueType::kString:
    case ValueType::kBytes:
    case ValueType::kList:
    case ValueType::kMap:
      break;
  }
  return fmt::format("a string \"{}\"", scalar);
}

Value ConfigNode::ToValue() const {
  switch (kind) {
    case Kind::kNull:
      return Value();
    case Kind::kSequence: {
      List list;
      for (const ConfigNode& item : items) list.push_back(item.ToValue());
      return Value(std::move(list));
    }
    case Kind::kMap: {
      Map map;
      for (const auto& [k, v] : members) map.emplace_back(Value(k), v.ToValue());
      return Value(std::move(map));
    }
    case Kind::kScalar:
      break;
  }
  if (quoted) return Value(scalar);
  if (IsNullText(scalar)) return Value();
  if (auto b = BoolText(scalar)) return Value(*b);
  if (auto i = IntText(scalar)) return Value(*i);
  if (auto d = DoubleText(scalar)) return Value(*d);
  return Value(scalar);
}

ConfigError::ConfigError(const ConfigNode& at, const std::string& message)
    : std::runtime_error(Format(at.mark, at.path, message)) {}

ConfigError::ConfigError(const SourceMark& mark, const std::string& path,
                         const std::string& message)
    : std::runtime_error(Format(mark, path, message)) {}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  for (const std::string& c : candidates) {
    const std::size_t d = EditDistance(word, c);
    if (best == nullptr || d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  if (best == nullptr || best_distance > std::max<std::size_t>(2, word.size() / 3)) return "";
  return fmt::format("did you mean \"{}\"?", *best);
}

int64_t ReadInt(const ConfigNode& node) {
  if (node.kind == ConfigNode::Kind::kScalar && !node.quoted) {
    if (auto i = IntText(node.scalar)) return *i;
  }
  throw ConfigError(node, fmt::format("expected an integer, found {}", node.Describe()));
}

double ReadDouble(const ConfigNode& node) {
  if (node.kind == ConfigNode::Kind::kScalar && !node.quoted) {
    if (auto d = DoubleText(node.scalar)) return *d;
  }
  throw ConfigError(node, fmt::format("expected a number, found {}", node.Describe()));
}

bool ReadBool(const ConfigNode& node) {
  if (node.kind == ConfigNode::Kind::kScalar && !node.quoted) {
    if (auto b = BoolText(node.scalar)) return *b;
  }
  throw ConfigError(node, fmt::format("expected true or false, found {}", node.Describe()));
}

const std::string& ReadString(const ConfigNode& node) {
  if (node.kind == ConfigNode::Kind::kScalar) return node.scalar;
  throw ConfigError(node, fmt::format("expected a string, found {}", node.Describe()));
}

std::vector<std::string> ReadStringList(const ConfigNode& node) {
  if (node.kind != ConfigNode::Kind::kSequence) {
    throw ConfigError(node, fmt::format("expected a list of strings, found {}", node.Describe()));
  }
  std::vector<std::string> out;
  for (const ConfigNode& item : node.items) out.push_back(ReadString(item));
  return out;
}

ConfigReader::ConfigReader(const ConfigNode& map) : map_(map) {
  if (map.kind != ConfigNode::Kind::kMap && map.kind != ConfigNode::Kind::kNull) {
    throw ConfigError(map, fmt::format("expected a map, found {}", map.Describe()));
  }
}

const ConfigNode* ConfigReader::Use(std::string_view key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.emplace_back(key);
  const ConfigNode* n = map_.Find(key);
  // A key written with no value ("key:") counts as absent.
  return n != nullptr && n->kind == ConfigNode::Kind::kNull ? nullptr : n;
}

const ConfigNode* ConfigReader::Node(std::string_view key) { return Use(key); }

int64_t ConfigReader::Int(std::string_view key, int64_t fallback) {
  const ConfigNode* n = Use(key);
  return n != nullptr ? ReadInt(*n) : fallback;
}

int64_t ConfigReader::IntAtLeast(std::string_view key, int64_t fallback, int64_t minimum) {
  const ConfigNode* n = Use(key);
  if (n == nullptr) return fallback;
  const int64_t v = ReadInt(*n);
  if (v < minimum) {
    throw ConfigError(*n, fmt::format("expected an integer >= {}, found {}", minimum, v));
  }
  return v;
}

double ConfigReader::Double(std::string_view key, double fallback) {
  const ConfigNode* n = Use(key);
  return n != nullptr ? ReadDouble(*n) : fallback;
}

bool ConfigReader::Bool(std::string_view key, bool fallback) {
  const ConfigNode* n = Use(key);
  return n != nullptr ? ReadBool(*n) : fallback;
}

std::string ConfigReader::String(std::string_view key, std::string fallback) {
  const ConfigNode* n = Use(key);
  return n != nullptr ? ReadString(*n) : fallback;
}

std::string ConfigReader::RequiredString(std::string_view key) {
  const ConfigNode* n = Use(key);
  if (n == nullptr) Fail(key, fmt::format("missing required key \"{}\"", key));
  return ReadString(*n);
}

std::vector<std::string> ConfigReader::StringList(std::string_view key) {
  const ConfigNode* n = Use(key);
  return n != nullptr ? ReadStringList(*n) : std::vector<std::string>{};
}

void ConfigReader::Fail(std::string_view key, const std::string& message) const {
  const ConfigNode* n = map_.Find(key);
  throw ConfigError(n != nullptr ? *n : map_, message);
}

void ConfigReader::Finish() const {
  for (const auto& [key, value] : map_.members) {
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    std::string message = fmt::format("unknown key \"{}\"", key);
    const std::string hint = DidYouMean(key, known_);
    if (!hint.empty()) message += " (" + hint + ")";
    if (known_.empty()) {
      message += "; this component takes no config keys";
    } else {
      std::vector<std::string> sorted = known_;
      std::sort(sorted.begin(), sorted.end());
      message += fmt::format("; known keys: {}", fmt::join(sorted, ", "));
    }
    throw ConfigError(value.key_mark.line > 0 ? value.key_mark : value.mark, value.path, message);
  }
}

}  // namespace tempest::topology

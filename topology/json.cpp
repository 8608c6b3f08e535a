#include "topology/json.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace tempest::topology {
namespace {

using Json = nlohmann::ordered_json;

// A repeated key keeps its first position and takes its last value (as nlohmann's DOM does).
void DropDuplicateKeys(Map& map) {
  if (map.size() < 2) return;
  bool duplicate = false;
  if (map.size() <= 16) {
    for (std::size_t i = 1; i < map.size() && !duplicate; ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (map[i].first == map[j].first) {
          duplicate = true;
          break;
        }
      }
    }
  } else {
    std::unordered_set<std::string_view> seen;
    for (const auto& [key, value] : map) {
      if (!seen.insert(key.AsString()).second) {
        duplicate = true;
        break;
      }
    }
  }
  if (!duplicate) return;
  Map unique;
  std::unordered_map<std::string, std::size_t> position;
  for (auto& [key, value] : map) {
    const auto [it, inserted] = position.emplace(key.AsString(), unique.size());
    if (inserted) {
      unique.emplace_back(std::move(key), std::move(value));
    } else {
      unique[it->second].second = std::move(value);
    }
  }
  map = std::move(unique);
}

// Builds a Value straight from nlohmann's SAX events (no intermediate DOM), with an explicit
// stack so that depth is bounded by kMaxJsonDepth rather than by recursion.
class ValueBuilder {
 public:
  Value TakeRoot() { return std::move(root_); }
  const std::string& error() const { return error_; }

  bool null() { return Put(Value()); }
  bool boolean(bool b) { return Put(Value(b)); }
  bool number_integer(Json::number_integer_t i) { return Put(Value(static_cast<int64_t>(i))); }
  bool number_unsigned(Json::number_unsigned_t u) {
    if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Put(Value(static_cast<int64_t>(u)));
    }
    return Put(Value(static_cast<double>(u)));
  }
  bool number_float(Json::number_float_t d, const Json::string_t&) { return Put(Value(d)); }
  bool string(Json::string_t& s) { return Put(Value(std::move(s))); }
  bool binary(Json::binary_t&) { return Put(Value()); }  // never produced by JSON text
  bool start_object(std::size_t) { return Open(true); }
  bool key(Json::string_t& k) {
    stack_.back().key = std::move(k);
    return true;
  }
  bool end_object() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    DropDuplicateKeys(frame.map);
    return Put(Value(std::move(frame.map)));
  }
  bool start_array(std::size_t) { return Open(false); }
  bool end_array() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    return Put(Value(std::move(frame.list)));
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix; keep the position and detail.
    std::string_view what = e.what();
    if (!what.empty() && what.front() == '[') {
      const std::size_t end = what.find("] ");
      if (end != std::string_view::npos) what.remove_prefix(end + 2);
    }
    error_ = fmt::format("invalid JSON: {}", what);
    return false;
  }

 private:
  struct Frame {
    bool object = false;
    List list;
    Map map;
    std::string key;  // the key of the member being parsed (objects only)
  };

  bool Open(bool object) {
    if (stack_.size() >= kMaxJsonDepth) {
      error_ =
          fmt::format("invalid JSON: arrays/objects nested deeper than {} levels", kMaxJsonDepth);
      return false;
    }
    stack_.emplace_back().object = object;
    return true;
  }

  bool Put(Value v) {
    if (stack_.empty()) {
      root_ = std::move(v);
    } else if (Frame& top = stack_.back(); top.object) {
      top.map.emplace_back(Value(std::move(top.key)), std::move(v));
      top.key.clear();
    } else {
      top.list.push_back(std::move(v));
    }
    return true;
  }

  std::vector<Frame> stack_;
  Value root_;
  std::string error_;
};

constexpr char kHex[] = "0123456789abcdef";

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not valid (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t Utf8SequenceLength(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  const auto continuation = [&](std::size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return k < s.size() && byte(k) >= lo && byte(k) <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return continuation(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = c == 0xED ? 0x9F : 0xBF;
    return continuation(i + 1, lo, hi) && continuation(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned char lo = c == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xF4 ? 0x8F : 0xBF;
    return continuation(i + 1, lo, hi) && continuation(i + 2) && continuation(i + 3) ? 4 : 0;
  }
  return 0;
}

void AppendJsonString(std::string& out, std::string_view s) {
  out.push_back('"');
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t n = Utf8SequenceLength(s, i);
      if (n == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out.push_back('"');
}

void AppendBase64(std::string& out, std::string_view data) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  out.push_back('"');
  std::size_t i = 0;
  const auto at = [&](std::size_t k) {
    return static_cast<uint32_t>(static_cast<uint8_t>(data[k]));
  };
  for (; i + 3 <= data.size(); i += 3) {
    const uint32_t n = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
    out.push_back(kAlphabet[n >> 18 & 63]);
    out.push_back(kAlphabet[n >> 12 & 63]);
    out.push_back(kAlphabet[n >> 6 & 63]);
    out.push_back(kAlphabet[n & 63]);
  }
  if (const std::size_t rest = data.size() - i; rest > 0) {
    const uint32_t n = at(i) << 16 | (rest == 2 ? at(i + 1) << 8 : 0);
    out.push_back(kAlphabet[n >> 18 & 63]);
    out.push_back(kAlphabet[n >> 12 & 63]);
    out.push_back(rest == 2 ? kAlphabet[n >> 6 & 63] : '=');
    out.push_back('=');
  }
  out.push_back('"');
}

void AppendDouble(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  const std::size_t start = out.size();
  fmt::format_to(std::back_inserter(out), "{}", d);
  // fmt writes integral doubles without a point ("2", "-0"); make them read back as floats.
  if (out.find_first_of(".e", start) == std::string::npos) out += ".0";
}

void AppendKey(std::string& out, const Value& key) {
  if (const std::string* s = key.IfString()) {
    AppendJsonString(out, *s);
    return;
  }
  std::string text;
  AppendJson(text, key);
  AppendJsonString(out, text);
}

}  // namespace

Value ParseJson(std::string_view text) {
  ValueBuilder builder;
  if (!Json::sax_parse(text.begin(), text.end(), &builder)) {
    throw std::invalid_argument(builder.error().empty() ? "invalid JSON" : builder.error());
  }
  return builder.TakeRoot();
}

void AppendJson(std::string& out, const Value& v) {
  switch (v.type()) {
    case ValueType::kNull:
      out += "null";
      return;
    case ValueType::kBool:
      out += v.AsBool() ? "true" : "false";
      return;
    case ValueType::kInt:
      fmt::format_to(std::back_inserter(out), "{}", v.AsInt());
      return;
    case ValueType::kDouble:
      AppendDouble(out, v.AsDouble());
      return;
    case ValueType::kString:
      AppendJsonString(out, v.AsString());
      return;
    case ValueType::kBytes:
      AppendBase64(out, v.AsBytes().data);
      return;
    case ValueType::kList: {
      out.push_back('[');
      bool first = true;
      for (const Value& e : v.AsList()) {
        if (!first) out.push_back(',');
        first = false;
        AppendJson(out, e);
      }
      out.push_back(']');
      return;
    }
    case ValueType::kMap: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, e] : v.AsMap()) {
        if (!first) out.push_back(',');
        first = false;
        AppendKey(out, key);
        out.push_back(':');
        AppendJson(out, e);
      }
      out.push_back('}');
      return;
    }
  }
}

std::string ToJson(const Value& v) {
  std::string out;
  AppendJson(out, v);
  return out;
}

namespace {

void AppendCell(std::string& out, const RowRef& row, std::size_t field) {
  const Cell& c = row.cell(field);
  switch (c.tag) {
    case CellTag::kNull:
      out += "null";
      return;
    case CellTag::kFalse:
      out += "false";
      return;
    case CellTag::kTrue:
      out += "true";
      return;
    case CellTag::kInt:
      fmt::format_to(std::back_inserter(out), "{}", c.Int());
      return;
    case CellTag::kDouble:
      AppendDouble(out, c.Double());
      return;
    case CellTag::kShortString:
    case CellTag::kString:
      AppendJsonString(out, row.Text(field));
      return;
    case CellTag::kShortBytes:
    case CellTag::kBytes:
      AppendBase64(out, row.Text(field));
      return;
    case CellTag::kValue:
      AppendJson(out, *row.SideValue(field));
      return;
  }
}

// {"field": value, ...} of `n` values, value i appended by append(i).
template <class Append>
void AppendObject(std::string& out, const Fields& fields, std::size_t n, Append append) {
  if (fields.size() != n) {
    throw std::invalid_argument(
        fmt::format("{} values for the {} fields {}", n, fields.size(), fields.ToString()));
  }
  out.push_back('{');
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out.push_back(',');
    AppendJsonString(out, fields.Get(i));
    out.push_back(':');
    append(i);
  }
  out.push_back('}');
}

}  // namespace

void AppendJsonObject(std::string& out, const Fields& fields, const Values& values) {
  AppendObject(out, fields, values.size(), [&](std::size_t i) { AppendJson(out, values[i]); });
}

void AppendJsonObject(std::string& out, const Fields& fields, const RowRef& row) {
  AppendObject(out, fields, row.size(), [&](std::size_t i) { AppendCell(out, row, i); });
}

}  // namespace tempest::topology

#include "bolts/join/join_yaml_reading.h"

#include <fmt/format.h>

namespace tempest::bolts {

using topology::ConfigError;
using topology::ConfigNode;
using topology::ConfigReader;

std::vector<std::string> ReadJoinKey(ConfigReader& r) {
  const ConfigNode* key = r.Node("key");
  if (key == nullptr) r.Fail("key", "missing key \"key\": the join field (or a list of fields)");
  if (key->kind == ConfigNode::Kind::kSequence) {
    std::vector<std::string> out = topology::ReadStringList(*key);
    if (out.empty())
      throw ConfigError(*key, "expected at least one key field, found an empty list");
    return out;
  }
  return {topology::ReadString(*key)};
}

JoinType ReadJoinType(ConfigReader& r) {
  const std::string type = r.String("type", "inner");
  if (type == "inner") return JoinType::kInner;
  if (type == "left") return JoinType::kLeft;
  if (type == "right") return JoinType::kRight;
  if (type == "full") return JoinType::kFull;
  r.Fail("type", fmt::format("expected inner, left, right or full, found \"{}\"", type));
}

JoinSelector ReadJoinSelector(ConfigReader& r) {
  const std::string selector = r.String("selector", "source");
  if (selector == "stream") return JoinSelector::kStream;
  if (selector != "source") {
    r.Fail("selector", fmt::format("expected stream or source, found \"{}\"", selector));
  }
  return JoinSelector::kSource;
}

const ConfigNode& RequiredMap(ConfigReader& r, const char* key, const char* expected) {
  const ConfigNode* node = r.Node(key);
  if (node == nullptr) r.Fail(key, fmt::format("missing key \"{}\": expected {}", key, expected));
  if (node->kind != ConfigNode::Kind::kMap) {
    throw ConfigError(*node, fmt::format("expected {}, found {}", expected, node->Describe()));
  }
  return *node;
}

}  // namespace tempest::bolts

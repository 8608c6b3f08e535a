#include "bolts/join/join_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "bolts/join/field_selector.h"

namespace tempest::bolts {

const std::string& JoinInputName(JoinSelector selector, const topology::GlobalStreamId& stream) {
  return selector == JoinSelector::kStream ? stream.stream : stream.component;
}

void ValidateJoinClauses(const JoinFrom& from, const std::vector<JoinClause>& joins) {
  if (from.name.empty()) throw std::invalid_argument("the join needs a first input (from)");
  if (from.key.empty())
    throw std::invalid_argument(fmt::format("'{}' needs a join key", from.name));
  std::vector<std::pair<std::string, std::size_t>> declared = {{from.name, from.key.size()}};
  for (const std::string& k : from.key) FieldSelector::ForInput(from.name, k);
  if (joins.size() >= kMaxJoinInputs) {
    throw std::invalid_argument(fmt::format("a join takes at most {} inputs; this one has {}",
                                            kMaxJoinInputs, joins.size() + 1));
  }
  for (const JoinClause& j : joins) {
    for (const auto& [name, parts] : declared) {
      if (name == j.name) {
        throw std::invalid_argument(fmt::format(
            "'{}' is already part of join. Cannot join with it more than once.", j.name));
      }
    }
    const auto with = std::find_if(declared.begin(), declared.end(),
                                   [&](const auto& d) { return d.first == j.with; });
    if (with == declared.end()) {
      throw std::invalid_argument(fmt::format("Stream '{}' was not previously declared", j.with));
    }
    if (j.key.empty()) throw std::invalid_argument(fmt::format("'{}' needs a join key", j.name));
    for (const std::string& k : j.key) FieldSelector::ForInput(j.name, k);
    if (j.key.size() != with->second) {
      throw std::invalid_argument(
          fmt::format("'{}' joins on {} key fields but '{}' has {}: the keys must pair up", j.name,
                      j.key.size(), j.with, with->second));
    }
    declared.emplace_back(j.name, j.key.size());
  }
}

namespace {

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

const char* GroupingName(topology::GroupingType t) { return topology::GroupingTypeName(t).data(); }

}  // namespace

void ValidateJoinInputs(
    const JoinBoltConfig& c, int parallelism,
    const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs,
    const std::vector<topology::GroupingSpec>& groupings) {
  std::vector<std::string> names = {c.from.name};
  std::vector<const std::vector<std::string>*> keys = {&c.from.key};
  for (const JoinClause& j : c.joins) {
    names.push_back(j.name);
    keys.push_back(&j.key);
  }
  const char* by = c.selector == JoinSelector::kStream ? "stream" : "source";
  std::vector<std::string> input_names;
  for (const auto& [stream, fields] : inputs)
    input_names.push_back(JoinInputName(c.selector, stream));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto it = std::find(names.begin(), names.end(), input_names[i]);
    if (it == names.end()) {
      throw std::invalid_argument(fmt::format(
          "input {}:{} is \"{}\" by {}, which the join does not name (join names: {})",
          inputs[i].first.component, inputs[i].first.stream, input_names[i], by, Join(names)));
    }
  }
  for (const std::string& n : names) {
    if (std::find(input_names.begin(), input_names.end(), n) == input_names.end()) {
      throw std::invalid_argument(fmt::format(
          "\"{}\" is not an input of this bolt (its inputs by {}: {})", n, by, Join(input_names)));
    }
  }
  if (parallelism <= 1) return;
  for (std::size_t i = 0; i < inputs.size() && i < groupings.size(); ++i) {
    const std::size_t n = static_cast<std::size_t>(
        std::find(names.begin(), names.end(), input_names[i]) - names.begin());
    std::vector<std::string> key_fields;
    for (const std::string& k : *keys[n]) key_fields.push_back(FieldSelector::Parse(k).path[0]);
    const topology::GroupingSpec& g = groupings[i];
    if (g.type == topology::GroupingType::kGlobal) continue;
    if (g.type == topology::GroupingType::kFields && g.fields == key_fields) continue;
    throw std::invalid_argument(fmt::format(
        "with parallelism {}, input \"{}\" must be fields-grouped on its join key [{}] (or "
        "global), or matching tuples can reach different tasks; it is {}{}",
        parallelism, input_names[i], Join(key_fields), GroupingName(g.type),
        g.type == topology::GroupingType::kFields ? " [" + Join(g.fields) + "]" : ""));
  }
}

}  // namespace tempest::bolts

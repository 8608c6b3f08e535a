#include "bolts/join/join_plan.h"

#include <fmt/format.h>

#include <stdexcept>

namespace tempest::bolts {

namespace {

int IndexOf(const topology::Fields& fields, const std::string& name) {
  const auto& names = fields.names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

JoinPlan PlanJoin(
    const JoinBoltConfig& config,
    const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs) {
  return PlanJoin(config, inputs, ParseSelect(config.select));
}

JoinPlan PlanJoin(const JoinBoltConfig& config,
                  const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs,
                  const std::vector<FieldSelector>& select) {
  JoinPlan plan;
  plan.names.push_back(config.from.name);
  plan.clauses.emplace_back();
  std::vector<const std::vector<std::string>*> key_text = {&config.from.key};
  for (const JoinClause& j : config.joins) {
    const auto with = std::find(plan.names.begin(), plan.names.end(), j.with);
    plan.clauses.push_back({j.type, static_cast<std::size_t>(with - plan.names.begin())});
    plan.names.push_back(j.name);
    key_text.push_back(&j.key);
  }
  plan.width = plan.names.size();
  for (std::size_t p = 0; p < plan.width; ++p) {
    std::vector<FieldSelector> key;
    for (const std::string& k : *key_text[p])
      key.push_back(FieldSelector::ForInput(plan.names[p], k));
    plan.keys.push_back(std::move(key));
  }

  // The fields each input name declares (an input name may cover several streams).
  std::vector<std::vector<const topology::Fields*>> fields_of(plan.width);
  for (const auto& [stream, fields] : inputs) {
    const std::string& name = JoinInputName(config.selector, stream);
    const auto it = std::find(plan.names.begin(), plan.names.end(), name);
    if (it != plan.names.end()) fields_of[it - plan.names.begin()].push_back(&fields);
  }
  auto declares = [&](std::size_t p, const std::string& field) {
    for (const topology::Fields* f : fields_of[p]) {
      if (IndexOf(*f, field) >= 0) return true;
    }
    return false;
  };
  auto describe = [&] {
    std::string out;
    for (std::size_t p = 0; p < plan.width; ++p) {
      for (const topology::Fields* f : fields_of[p]) {
        out +=
            fmt::format("{}{}: {}", out.empty() ? "" : "; ", plan.names[p], JoinNames(f->names()));
      }
    }
    return out;
  };

  for (std::size_t p = 0; p < plan.width; ++p) {
    for (const FieldSelector& k : plan.keys[p]) {
      for (const topology::Fields* f : fields_of[p]) {
        if (IndexOf(*f, k.path[0]) < 0) {
          throw std::invalid_argument(fmt::format("join key \"{}\" is not declared by \"{}\" ({})",
                                                  k.path[0], plan.names[p], JoinNames(f->names())));
        }
      }
    }
  }

  for (const FieldSelector& s : select) {
    SelectPlan sp;
    sp.path = s.path;
    bool found = false;
    for (std::size_t p = 0; p < plan.width && !found; ++p) {
      if (s.name.empty() ? declares(p, s.path[0]) : EqualsIgnoreCase(s.name, plan.names[p])) {
        sp.input = p;
        found = true;
      }
    }
    if (!found) {
      throw std::invalid_argument(
          s.name.empty() ? fmt::format("select: field \"{}\" is not declared by any input ({})",
                                       s.path[0], describe())
                         : fmt::format("select: \"{}\" names no input of the join (names: {})",
                                       s.name, JoinNames(plan.names)));
    }
    if (!s.name.empty() && !declares(sp.input, s.path[0])) {
      throw std::invalid_argument(fmt::format("select: field \"{}\" is not declared by \"{}\" ({})",
                                              s.path[0], plan.names[sp.input], describe()));
    }
    plan.select.push_back(std::move(sp));
  }

  for (const auto& [stream, fields] : inputs) {
    const std::string& name = JoinInputName(config.selector, stream);
    const auto it = std::find(plan.names.begin(), plan.names.end(), name);
    if (it == plan.names.end()) continue;
    InputPlan ip;
    ip.position = static_cast<std::size_t>(it - plan.names.begin());
    for (const FieldSelector& k : plan.keys[ip.position])
      ip.key_index.push_back(IndexOf(fields, k.path[0]));
    for (const SelectPlan& s : plan.select) {
      ip.select_index.push_back(s.input == ip.position ? IndexOf(fields, s.path[0]) : -1);
    }
    plan.inputs.emplace_back(stream, std::move(ip));
  }
  return plan;
}

std::vector<uint8_t> FieldsRead(const JoinPlan& plan, const topology::StreamSchema& stream,
                                bool keys) {
  const InputPlan* p = plan.Find(topology::GlobalStreamId{stream.component, stream.stream});
  if (p == nullptr || !stream.fields) return {};
  std::vector<uint8_t> read(stream.fields->size(), 0);
  const auto mark = [&read](const std::vector<int>& indexes) {
    for (int i : indexes) {
      if (i >= 0 && static_cast<std::size_t>(i) < read.size())
        read[static_cast<std::size_t>(i)] = 1;
    }
  };
  mark(p->select_index);
  if (keys) mark(p->key_index);
  return read;
}

}  // namespace tempest::bolts

#include "topology/topology_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "topology/bolt.h"
#include "topology/errors.h"
#include "topology/output_fields_declarer.h"
#include "topology/spout.h"

namespace tempest::topology {

const StreamSchema* ComponentSpec::FindStream(std::string_view stream) const noexcept {
  for (const auto& s : streams) {
    if (s->stream == stream) return s.get();
  }
  return nullptr;
}

std::vector<std::shared_ptr<const StreamSchema>> ComponentSpec::DeclareStreams() const {
  OutputFieldsDeclarer declarer(id);
  switch (kind) {
    case ComponentKind::kSpout:
      if (spout_factory) spout_factory()->DeclareOutputFields(declarer);
      break;
    case ComponentKind::kBolt:
      if (bolt_factory) bolt_factory()->DeclareOutputFields(declarer);
      break;
  }
  return declarer.TakeStreams();
}

void ComponentSpec::AddFailedStream(
    std::vector<std::shared_ptr<const StreamSchema>>& streams) const {
  if (failed_stream.empty()) return;
  if (streams.empty()) {
    throw std::invalid_argument(
        fmt::format("failed_stream \"{}\": spout \"{}\" declares no stream to take its fields from",
                    failed_stream, id));
  }
  for (const auto& s : streams) {
    if (s->stream == failed_stream) {
      throw std::invalid_argument(
          fmt::format("failed_stream \"{}\" is a stream spout \"{}\" declares itself; name another",
                      failed_stream, id));
    }
    if (*s->fields != *streams.front()->fields) {
      throw std::invalid_argument(fmt::format(
          "failed_stream \"{}\" takes the fields of spout \"{}\"'s streams, and they differ "
          "(\"{}\": {}, \"{}\": {})",
          failed_stream, id, streams.front()->stream, streams.front()->fields->ToString(),
          s->stream, s->fields->ToString()));
    }
  }
  auto schema = std::make_shared<StreamSchema>(*streams.front());
  schema->stream = failed_stream;
  schema->direct = false;
  streams.push_back(std::move(schema));
}

const ComponentSpec* TopologySpec::Find(std::string_view id) const noexcept {
  for (const ComponentSpec& c : components) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

namespace {

[[noreturn]] void Invalid(const std::string& message) { throw InvalidTopologyException(message); }

std::string_view KindName(ComponentKind kind) {
  switch (kind) {
    case ComponentKind::kSpout:
      return "Spout";
    case ComponentKind::kBolt:
      return "Bolt";
  }
  return "Component";
}

void ValidateComponent(const ComponentSpec& c) {
  if (c.id.empty()) Invalid("A component has an empty id");
  if (c.id.starts_with("__")) {
    Invalid(
        fmt::format("Component id [{}] is reserved: ids starting with '__' belong to "
                    "Tempest's system components",
                    c.id));
  }
  if (c.parallelism < 1) {
    Invalid(fmt::format("Component: [{}] has parallelism {}; parallelism must be at least 1", c.id,
                        c.parallelism));
  }
  switch (c.kind) {
    case ComponentKind::kSpout:
      if (!c.spout_factory) Invalid(fmt::format("Spout: [{}] has no factory", c.id));
      if (!c.inputs.empty()) {
        Invalid(fmt::format("Component: [{}] is a spout and cannot subscribe to streams", c.id));
      }
      break;
    case ComponentKind::kBolt:
      if (!c.bolt_factory) Invalid(fmt::format("Bolt: [{}] has no factory", c.id));
      break;
  }
}

// The components by id (a lookup per input: linear in the topology, not quadratic).
using ComponentIndex = std::map<std::string_view, const ComponentSpec*>;

void ValidateInput(const ComponentIndex& components, const ComponentSpec& c, const InputSpec& in) {
  const GlobalStreamId& src = in.source;
  const auto found = components.find(src.component);
  const ComponentSpec* source = found != components.end() ? found->second : nullptr;
  if (source == nullptr) {
    Invalid(fmt::format("Component: [{}] subscribes from non-existent component [{}]", c.id,
                        src.component));
  }
  const StreamSchema* stream = source->FindStream(src.stream);
  if (stream == nullptr) {
    Invalid(
        fmt::format("Component: [{}] subscribes from non-existent stream: [{}] of component [{}]",
                    c.id, src.stream, src.component));
  }
  const GroupingSpec& g = in.grouping;
  const bool direct_grouping = g.type == GroupingType::kDirect;
  if (direct_grouping && !stream->direct) {
    Invalid(
        fmt::format("Component: [{}] subscribes with a DIRECT grouping to stream: [{}] of "
                    "component [{}], which is not declared direct",
                    c.id, src.stream, src.component));
  }
  if (!direct_grouping && stream->direct) {
    Invalid(
        fmt::format("Component: [{}] subscribes with a {} grouping to direct stream: [{}] of "
                    "component [{}]; a direct stream takes only a DIRECT grouping",
                    c.id, GroupingTypeName(g.type), src.stream, src.component));
  }
  if (g.type == GroupingType::kFields || g.type == GroupingType::kPartialKey) {
    if (g.fields.empty()) {
      Invalid(
          fmt::format("Component: [{}] subscribes from stream: [{}] of component [{}] with a "
                      "{} grouping that names no fields",
                      c.id, src.stream, src.component, GroupingTypeName(g.type)));
    }
    std::vector<std::string> missing;
    for (const std::string& f : g.fields) {
      if (!stream->fields->Contains(f)) missing.push_back(f);
    }
    if (!missing.empty()) {
      Invalid(fmt::format(
          "Component: [{}] subscribes from stream: [{}] of component [{}] + with "
          "non-existent fields: [{}] (declared: {})",
          c.id, src.stream, src.component, fmt::join(missing, ", "), stream->fields->ToString()));
    }
  } else if (!g.fields.empty()) {
    Invalid(
        fmt::format("Component: [{}] subscribes from stream: [{}] of component [{}] with a {} "
                    "grouping, which takes no fields",
                    c.id, src.stream, src.component, GroupingTypeName(g.type)));
  }
  if (g.type == GroupingType::kCustom && !g.custom) {
    Invalid(
        fmt::format("Component: [{}] subscribes from stream: [{}] of component [{}] with a "
                    "CUSTOM grouping that has no factory",
                    c.id, src.stream, src.component));
  }
}

// Bounded runs end by end-of-stream flowing downstream, which needs an acyclic graph.
void ValidateAcyclic(const TopologySpec& spec) {
  std::map<std::string, std::vector<std::string>> downstream;
  for (const ComponentSpec& c : spec.components) {
    for (const InputSpec& in : c.inputs) downstream[in.source.component].push_back(c.id);
  }
  enum class Mark { kNew, kOpen, kDone };
  std::map<std::string, Mark> mark;
  // Depth first with an explicit stack (a topology may chain 100,000 bolts): each frame is a
  // component on the current path and how many of its downstream components were visited.
  struct Frame {
    const std::string* id;
    std::size_t next = 0;
  };
  std::vector<Frame> path;
  for (const ComponentSpec& c : spec.components) {
    if (mark[c.id] != Mark::kNew) continue;
    mark[c.id] = Mark::kOpen;
    path.push_back({&c.id});
    while (!path.empty()) {
      const std::vector<std::string>& after = downstream[*path.back().id];
      if (path.back().next == after.size()) {
        mark[*path.back().id] = Mark::kDone;
        path.pop_back();
        continue;
      }
      const std::string& next = after[path.back().next++];
      if (mark[next] == Mark::kOpen) {
        auto start =
            std::find_if(path.begin(), path.end(), [&](const Frame& f) { return *f.id == next; });
        std::vector<std::string> cycle;
        for (auto f = start; f != path.end(); ++f) cycle.push_back(*f->id);
        cycle.push_back(next);
        Invalid(
            fmt::format("Topology '{}' has a cycle: {}. Streams must form an acyclic graph so "
                        "that end-of-stream reaches every task",
                        spec.name, fmt::join(cycle, " -> ")));
      }
      if (mark[next] == Mark::kNew) {
        mark[next] = Mark::kOpen;
        path.push_back({&next});
      }
    }
  }
}

}  // namespace

void Validate(const TopologySpec& spec) {
  ComponentIndex components;
  bool has_spout = false;
  for (const ComponentSpec& c : spec.components) {
    ValidateComponent(c);
    auto [it, inserted] = components.emplace(c.id, &c);
    if (!inserted) {
      Invalid(
          fmt::format("{} has already been declared for id {}", KindName(it->second->kind), c.id));
    }
    has_spout = has_spout || c.kind == ComponentKind::kSpout;
  }
  if (!has_spout) {
    Invalid(fmt::format("Topology '{}' has no spout: nothing would ever emit", spec.name));
  }
  for (const ComponentSpec& c : spec.components) {
    std::set<GlobalStreamId> subscribed;
    for (const InputSpec& in : c.inputs) {
      ValidateInput(components, c, in);
      if (!subscribed.insert(in.source).second) {
        Invalid(fmt::format("Component: [{}] subscribes twice to stream: [{}] of component [{}]",
                            c.id, in.source.stream, in.source.component));
      }
    }
  }
  ValidateAcyclic(spec);
}

}  // namespace tempest::topology

#include "topology/graph.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tempest::topology {
namespace {

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string ToDot(const TopologySpec& spec) {
  std::string out = fmt::format("digraph \"{}\" {{\n  rankdir=LR;\n", Escape(spec.name));
  for (const ComponentSpec& c : spec.components) {
    const bool spout = c.kind == ComponentKind::kSpout;
    std::string label = Escape(c.id);
    if (!c.class_name.empty()) label += "\\n" + Escape(c.class_name);
    if (c.parallelism != 1) label += fmt::format(" x{}", c.parallelism);
    out += fmt::format("  \"{}\" [shape={}, label=\"{}\"];\n", Escape(c.id),
                       spout ? "invhouse" : "box", label);
  }
  for (const ComponentSpec& c : spec.components) {
    for (const InputSpec& in : c.inputs) {
      std::string label =
          Escape(in.source.stream) + "\\n" + std::string(GroupingTypeName(in.grouping.type));
      if (!in.grouping.fields.empty()) {
        label +=
            fmt::format("({})", Escape(fmt::format("{}", fmt::join(in.grouping.fields, ", "))));
      }
      out += fmt::format("  \"{}\" -> \"{}\" [label=\"{}\"];\n", Escape(in.source.component),
                         Escape(c.id), label);
    }
  }
  out += "}\n";
  return out;
}

}  // namespace tempest::topology

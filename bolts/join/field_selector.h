#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topology/row_batch.h"
#include "topology/tuple.h"
#include "topology/value.h"

namespace tempest::bolts {

// Storm's JoinBolt field descriptor: `[name:]field[.nested.path] [AS alias]`. `name` (an input's
// stream or source name, matched case-insensitively) is optional; each path step after the first
// looks a string key up in a map value. The output field's name is the alias, else the whole
// trimmed descriptor ("users:city"). Value type.
struct FieldSelector {
  std::string name;               // empty: unqualified
  std::vector<std::string> path;  // {"outer", "userId"}
  std::string output_name;

  // Throws std::invalid_argument for an empty field or path step.
  static FieldSelector Parse(std::string_view descriptor);
  // A key descriptor, whose input is implicit: a ':' is an error (Storm's message).
  static FieldSelector ForInput(std::string name, std::string_view descriptor);
};

// A comma-separated `select` list.
std::vector<FieldSelector> ParseSelect(std::string_view select);

// The value at the selector's path in `tuple`, whose first step is the field at `index` (-1: the
// tuple lacks it); nullptr when a step is missing or a non-final step is not a map.
const topology::Value* LookupPath(const topology::Tuple& tuple, int index,
                                  const std::vector<std::string>& path) noexcept;

// The value at path[1..] inside `root` (path[0] named root's field); nullptr as LookupPath.
const topology::Value* LookupNested(const topology::Value& root,
                                    const std::vector<std::string>& path) noexcept;

// LookupPath for a batch row: a plain field is read into `scratch`, a nested path is followed
// where the batch keeps the map.
const topology::Value* LookupPathInRow(const topology::RowRef& row, int index,
                                       const std::vector<std::string>& path,
                                       topology::Value& scratch);
// The same, with an integer field (the usual join key, read for every row) read inline.
inline const topology::Value* LookupPath(const topology::RowRef& row, int index,
                                         const std::vector<std::string>& path,
                                         topology::Value& scratch) {
  if (index >= 0 && static_cast<std::size_t>(index) < row.size() && path.size() == 1) {
    const topology::Cell& c = row.cell(static_cast<std::size_t>(index));
    if (c.tag == topology::CellTag::kInt) {
      scratch = topology::Value(c.Int());
      return &scratch;
    }
  }
  return LookupPathInRow(row, index, path, scratch);
}

// ASCII case-insensitive equality (input names in descriptors).
bool EqualsIgnoreCase(std::string_view a, std::string_view b) noexcept;

}  // namespace tempest::bolts

#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bolts/join/field_selector.h"
#include "bolts/join/join_inputs.h"
#include "topology/fields.h"
#include "topology/stream_schema.h"

namespace tempest::bolts {

// A JoinBolt's config resolved against its input streams' fields, once, so the per-window work
// only indexes. Internal to the join bolt.
struct InputPlan {
  std::size_t position = 0;       // the input's place in join order (0: from)
  std::vector<int> key_index;     // per key part: index of its first step in the fields, or -1
  std::vector<int> select_index;  // per select item taken from this input: likewise, else -1
};

struct ClausePlan {
  JoinType type = JoinType::kInner;
  std::size_t with = 0;  // position of the input it probes with
};

struct SelectPlan {
  std::size_t input = 0;  // position of the input the value comes from
  std::vector<std::string> path;
};

struct JoinPlan {
  std::size_t width = 0;                         // inputs in the join
  std::vector<std::string> names;                // by position
  std::vector<std::vector<FieldSelector>> keys;  // by position
  std::vector<ClausePlan> clauses;               // by position; [0] unused
  std::vector<SelectPlan> select;
  std::vector<std::pair<topology::GlobalStreamId, InputPlan>> inputs;

  const InputPlan* Find(const topology::GlobalStreamId& stream) const noexcept {
    for (const auto& [id, plan] : inputs) {
      if (id == stream) return &plan;
    }
    return nullptr;
  }
};

// Throws std::invalid_argument when a key or select field is declared by no input, or a
// select names no input, e.g. `select: field "prize" is not declared by any input (users: userId,
// name; orders: orderId, price)`.
JoinPlan PlanJoin(const JoinBoltConfig& config,
                  const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs);
// As above with the select items given (config.select is not read): the interval join plans
// its own pseudo-fields apart.
JoinPlan PlanJoin(const JoinBoltConfig& config,
                  const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs,
                  const std::vector<FieldSelector>& select);

// The fields of `stream` a join reads, one flag per field: those `select` takes from it, and
// with `keys` its key fields too. Empty when the join does not name the stream.
std::vector<uint8_t> FieldsRead(const JoinPlan& plan, const topology::StreamSchema& stream,
                                bool keys);

}  // namespace tempest::bolts

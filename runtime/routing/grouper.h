#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "topology/fields.h"
#include "topology/grouping.h"
#include "topology/stream_schema.h"
#include "topology/topology_context.h"
#include "topology/value.h"

namespace tempest::runtime {

// Picks the destination tasks of one emitted tuple for one subscription (one emitting task, one
// stream, one subscribing component). Owned by the emitting task; single-threaded.
class Grouper {
 public:
  virtual ~Grouper() = default;
  // Appends the chosen task ids to out.
  virtual void Choose(const topology::Values& values, std::vector<int>& out) = 0;
  // False when Choose ignores the values: an emit may then be routed before its row is built.
  virtual bool ReadsValues() const noexcept { return true; }
};

// What a grouper is built from.
struct GrouperInput {
  const topology::TopologyContext* context = nullptr;  // the emitting task's
  topology::GlobalStreamId stream;                     // the stream being grouped
  const topology::Fields* source_fields = nullptr;     // its declared fields
  std::vector<int> target_tasks;                       // subscriber's tasks, ascending
  std::function<bool(int)> is_local;  // task in the emitter's process? (local-or-shuffle)
  uint64_t seed = 0;                  // for shuffles and random choices
};

// One grouper per grouping type, each in its own file. Throws std::invalid_argument for a
// direct grouping (direct emits bypass groupers) or an unknown key field.
std::unique_ptr<Grouper> MakeGrouper(const topology::GroupingSpec& spec, GrouperInput input);

// The one task every emit of a built-in grouping goes to, when there is only one: a global
// grouping, or any other with a single target task (a custom grouping's user code may still
// drop or repeat, so it has none). Else -1. Routing then needs no grouper call (and no hash).
int OnlyTask(const topology::GroupingSpec& spec, const std::vector<int>& target_tasks);

std::unique_ptr<Grouper> MakeShuffleGrouper(GrouperInput input);
std::unique_ptr<Grouper> MakeFieldsGrouper(const std::vector<std::string>& fields,
                                           GrouperInput input);
std::unique_ptr<Grouper> MakeAllGrouper(GrouperInput input);
std::unique_ptr<Grouper> MakeGlobalGrouper(GrouperInput input);
std::unique_ptr<Grouper> MakeNoneGrouper(GrouperInput input);
std::unique_ptr<Grouper> MakeLocalOrShuffleGrouper(GrouperInput input);
std::unique_ptr<Grouper> MakePartialKeyGrouper(const std::vector<std::string>& fields,
                                               GrouperInput input);
std::unique_ptr<Grouper> MakeCustomGrouper(const topology::CustomGroupingFactory& factory,
                                           GrouperInput input);

// Indices of `names` in `fields`; throws std::invalid_argument for a missing one.
std::vector<std::size_t> KeyIndices(const topology::Fields& fields,
                                    const std::vector<std::string>& names);

}  // namespace tempest::runtime

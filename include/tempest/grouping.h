#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tempest/fields.h"
#include "tempest/value.h"

namespace tempest::topology {

class TopologyContext;

// How a stream's tuples are spread over the tasks of a subscribing bolt (Storm's groupings).
enum class GroupingType {
  kShuffle,         // round-robin over a shuffled, sorted task list: even load
  kFields,          // StableHash(selected values) mod task count: same key, same task
  kAll,             // every task gets a copy
  kGlobal,          // the task with the lowest id
  kNone,            // "don't care": a pseudo-random task
  kDirect,          // the emitter picks the task with EmitDirect
  kLocalOrShuffle,  // shuffle among tasks in the emitter's worker process, else among all
  kPartialKey,      // two hash choices per key, the less loaded one (key splitting)
  kCustom,          // a user CustomStreamGrouping
};

std::string_view GroupingTypeName(GroupingType type) noexcept;

// A user grouping (Storm's CustomStreamGrouping). One instance per emitting task and stream,
// called only from that task's thread.
class CustomStreamGrouping {
 public:
  virtual ~CustomStreamGrouping() = default;
  // target_tasks: the subscribing component's task ids, ascending.
  virtual void Prepare(const TopologyContext& context, const GlobalStreamId& stream,
                       const std::vector<int>& target_tasks) = 0;
  // Appends the chosen task ids (from target_tasks) to out.
  virtual void ChooseTasks(int emitting_task, const Values& values, std::vector<int>& out) = 0;
};

using CustomGroupingFactory = std::function<std::unique_ptr<CustomStreamGrouping>()>;

struct GroupingSpec {
  GroupingType type = GroupingType::kShuffle;
  std::vector<std::string> fields;  // kFields, kPartialKey: the key fields of the source stream
  CustomGroupingFactory custom;     // kCustom only
};

// A bolt's subscription to one stream of another component.
struct InputSpec {
  GlobalStreamId source;
  GroupingSpec grouping;
};

}  // namespace tempest::topology

namespace tempest {
using topology::CustomGroupingFactory;
using topology::CustomStreamGrouping;
using topology::GroupingSpec;
using topology::GroupingType;
using topology::InputSpec;
}  // namespace tempest

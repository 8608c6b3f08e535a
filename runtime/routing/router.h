#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "runtime/routing/grouper.h"
#include "topology/stream_schema.h"
#include "topology/topology_context.h"
#include "topology/value.h"

namespace tempest::runtime {

// Where one task's emits go: for each stream it declares, the subscribing components and their
// groupers. Built once per task before the run; used only by that task's thread.
class Router {
 public:
  struct Options {
    uint64_t seed = 0;                  // base seed of shuffles and random choices
    std::function<bool(int)> is_local;  // task in this process? (local-or-shuffle)
  };

  Router(const topology::TopologyContext& context, const Options& options);

  // Index of a declared output stream, or -1.
  int StreamIndex(std::string_view stream) const noexcept;
  const topology::StreamSchema& Schema(int stream) const noexcept {
    return *streams_[stream].schema;
  }
  // Declared stream ids, for error messages.
  std::string DeclaredStreams() const;

  // Appends the destinations of a regular emit on `stream` (none if nobody subscribes).
  void Route(int stream, const topology::Values& values, std::vector<int>& out) {
    OutStream& s = streams_[stream];
    if (s.only_task >= 0) {
      out.push_back(s.only_task);
      return;
    }
    for (auto& g : s.groupers) g->Choose(values, out);
  }
  // The one task every regular emit on `stream` goes to (one subscriber, whose grouping has
  // only that choice: OnlyTask in grouper.h), else -1.
  int OnlyTask(int stream) const noexcept { return streams_[stream].only_task; }
  // Whether no grouping of `stream` reads the values: Route may then be given empty values.
  bool RoutesWithoutValues(int stream) const noexcept {
    return streams_[stream].routes_without_values;
  }
  // Whether `task` subscribes to `stream` with a direct grouping.
  bool AcceptsDirect(int stream, int task) const noexcept;
  // Whether `task` subscribes to `stream` with a regular (non-direct) grouping.
  bool AcceptsRegular(int stream, int task) const noexcept;
  // Every task this task may send to, ascending: end-of-stream goes to each once.
  const std::vector<int>& DownstreamTasks() const noexcept { return downstream_; }

 private:
  struct OutStream {
    const topology::StreamSchema* schema = nullptr;
    std::vector<std::unique_ptr<Grouper>> groupers;
    std::vector<int> direct_tasks;   // ascending
    std::vector<int> regular_tasks;  // ascending
    bool routes_without_values = true;
    int only_task = -1;
  };
  std::vector<OutStream> streams_;
  std::vector<int> downstream_;
};

// The tasks that may send to `task`, ascending. A task's input has ended once it has
// end-of-stream from each of them.
std::vector<int> UpstreamTasks(const topology::TopologySpec& spec,
                               const topology::TaskLayout& layout, int task);
// The tasks `task` may send to, ascending (what Router::DownstreamTasks gives its own task).
std::vector<int> DownstreamTasks(const topology::TopologySpec& spec,
                                 const topology::TaskLayout& layout, int task);
// The spout tasks whose tuples may reach `task` along any path of streams, ascending: where the
// trees of its inputs start.
std::vector<int> SourceSpoutTasks(const topology::TopologySpec& spec,
                                  const topology::TaskLayout& layout, int task);

}  // namespace tempest::runtime

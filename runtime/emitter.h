#pragma once

#include <string_view>
#include <vector>

#include "runtime/queues/outbox.h"
#include "runtime/routing/router.h"
#include "runtime/task_metrics.h"
#include "topology/output_collector.h"
#include "topology/topology_context.h"
#include "topology/value.h"

namespace tempest::runtime {

// Makes the ack metadata of a tracked emit, once per destination task (each copy of a tuple is
// its own edge of the tuple tree, with its own edge id).
class AnchorSource {
 public:
  virtual ~AnchorSource() = default;
  virtual Outbox::AnchorList AnchorsFor(int task) = 0;
};

// The emit path shared by spout and bolt collectors: checks the emit against the declared
// stream, routes it and queues it in the outbox. Misuse throws std::invalid_argument (at the
// user-code boundary, where it fails the tuple being executed). Single-threaded (one task).
class Emitter {
 public:
  Emitter(const topology::TopologyContext& context, const Router::Options& router_options,
          Outbox outbox, TaskMetrics& metrics);

  // direct_task < 0: a regular emit, routed by the stream's groupings. With `anchors`, every copy
  // carries what anchors->AnchorsFor(its task) gives. Returns how many tasks it was sent to.
  // Inline for the usual emit, on the default stream when one task subscribes to it: with a
  // final Source (an executor's own), AnchorsFor is then called directly, or inlined.
  template <class Source = AnchorSource>
  std::size_t Emit(std::string_view stream, int direct_task, topology::Values&& values,
                   Source* anchors = nullptr) {
    if (direct_task < 0 && default_only_task_ >= 0 && IsDefaultStream(stream) &&
        values.size() == default_fields_) [[likely]] {
      const int only = default_only_task_;
      outbox_.Send(only, default_schema_, std::move(values),
                   anchors != nullptr ? anchors->AnchorsFor(only) : Outbox::AnchorList());
      TaskMetrics::Bump(metrics_.emitted);
      return 1;
    }
    return EmitRouted(ResolveStream(stream), direct_task, std::move(values), anchors);
  }

  // Unanchored rows on one stream (OutputCollector::EmitRows): the stream is resolved and checked
  // once; where its groupings do not read values, each row is routed first and built in the
  // outgoing tuple. Returns how many tuples were sent.
  std::size_t EmitRows(std::string_view stream, std::size_t count, topology::RowFiller& filler);

  // Sends a copy of `row`'s values on stream `stream` (an index: StreamIndexOf), routed by its
  // groupings; anchored as Emit's are.
  std::size_t ForwardRow(int stream, const topology::RowRef& row, AnchorSource* anchors);
  // As Emit (not direct), with `row`'s values (SpoutRowEmitter::EmitRow).
  std::size_t EmitRow(std::string_view stream, const topology::RowRef& row, AnchorSource* anchors) {
    return ForwardRow(ResolveStream(stream), row, anchors);
  }
  // The index of a declared stream; throws std::invalid_argument for an undeclared one.
  int StreamIndexOf(std::string_view stream) const { return ResolveStream(stream); }

  Outbox& outbox() noexcept { return outbox_; }
  const Router& router() const noexcept { return router_; }

 private:
  // Most emits name the default stream through kDefaultStream itself: an immutable literal, so
  // its address says which stream it is without comparing names (a memcmp call per emit).
  static bool IsDefaultStream(std::string_view stream) noexcept {
    return stream.data() == topology::kDefaultStream &&
           stream.size() == std::string_view(topology::kDefaultStream).size();
  }
  int ResolveStream(std::string_view stream) const {
    if (IsDefaultStream(stream) && default_stream_ >= 0) return default_stream_;
    return ResolveNamedStream(stream);
  }
  int ResolveNamedStream(std::string_view stream) const;
  void CheckSize(const topology::StreamSchema& schema, std::size_t size) const {
    if (size != schema.fields->size()) ThrowWrongSize(schema, size);
  }
  [[noreturn]] static void ThrowWrongSize(const topology::StreamSchema& schema, std::size_t size);
  [[noreturn]] static void ThrowNotDirect(const topology::StreamSchema& schema);
  // Emit's other cases: a direct emit, a debug log, several subscribers or a grouping.
  std::size_t EmitRouted(int stream, int direct_task, topology::Values&& values,
                         AnchorSource* anchors);
  // Sends to targets_ (already routed): copies to all but the last, which takes the values.
  std::size_t SendToTargets(const topology::StreamSchema& schema, topology::Values&& values,
                            AnchorSource* anchors);
  // EmitRows' rows all to one local task: built in its open batch a run at a time.
  std::size_t EmitRowsTo(int task, const topology::StreamSchema& schema, std::size_t count,
                         topology::RowFiller& filler);
  // The same for rows the filler already built (RowFiller::BuiltRows): copied a run at a time.
  std::size_t CopyRowsTo(int task, const topology::StreamSchema& schema, std::size_t count,
                         const topology::RowBatch& built);
  void LogEmit(const topology::StreamSchema& schema, int direct_task,
               const topology::Values& values) const;
  [[noreturn]] void ThrowDirectMisuse(int stream, int task) const;

  const topology::TopologyContext& context_;
  Router router_;
  Outbox outbox_;
  TaskMetrics& metrics_;
  std::vector<int> targets_;
  const topology::Values no_values_;  // what routing reads when no grouping reads values
  topology::Values row_values_;       // a forwarded row's values, when routing reads them
  const int default_stream_;          // the index of "default", or -1 if it is not declared
  bool debug_;
  // Emit's usual case, worked out once: the default stream, when one task subscribes to it
  // (else -1; also with debug logging or a direct stream), its schema and its field count.
  int default_only_task_ = -1;
  const topology::StreamSchema* default_schema_ = nullptr;
  std::size_t default_fields_ = 0;
};

}  // namespace tempest::runtime

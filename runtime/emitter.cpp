#include "runtime/emitter.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

namespace tempest::runtime {

Emitter::Emitter(const topology::TopologyContext& context, const Router::Options& router_options,
                 Outbox outbox, TaskMetrics& metrics)
    : context_(context),
      router_(context, router_options),
      outbox_(std::move(outbox)),
      metrics_(metrics),
      default_stream_(router_.StreamIndex(topology::kDefaultStream)),
      debug_(context.GetTopologyConfig().debug) {
  if (default_stream_ < 0 || debug_) return;
  default_schema_ = &router_.Schema(default_stream_);
  default_fields_ = default_schema_->fields->size();
  if (!default_schema_->direct) default_only_task_ = router_.OnlyTask(default_stream_);
}

int Emitter::ResolveNamedStream(std::string_view stream) const {
  const int s = router_.StreamIndex(stream);
  if (s < 0) {
    throw std::invalid_argument(
        fmt::format("component '{}' emitted on undeclared stream '{}' (declared: {})",
                    context_.GetThisComponentId(), stream, router_.DeclaredStreams()));
  }
  return s;
}

void Emitter::ThrowWrongSize(const topology::StreamSchema& schema, std::size_t size) {
  throw std::invalid_argument(fmt::format(
      "Tuple created with wrong number of fields. Expected {} fields but got {} fields "
      "(stream '{}' of component '{}' declares {})",
      schema.fields->size(), size, schema.stream, schema.component, schema.fields->ToString()));
}

void Emitter::ThrowNotDirect(const topology::StreamSchema& schema) {
  throw std::invalid_argument(
      fmt::format("Cannot emit on direct stream [{}] of component [{}] with Emit; use "
                  "EmitDirect",
                  schema.stream, schema.component));
}

std::size_t Emitter::EmitRouted(int s, int direct_task, topology::Values&& values,
                                AnchorSource* anchors) {
  const topology::StreamSchema& schema = router_.Schema(s);
  CheckSize(schema, values.size());
  if (debug_) LogEmit(schema, direct_task, values);
  std::size_t n = 1;
  if (direct_task >= 0) {
    if (!router_.AcceptsDirect(s, direct_task)) ThrowDirectMisuse(s, direct_task);
    outbox_.Send(direct_task, &schema, std::move(values),
                 anchors != nullptr ? anchors->AnchorsFor(direct_task) : Outbox::AnchorList());
  } else if (schema.direct) {
    ThrowNotDirect(schema);
  } else if (const int only = router_.OnlyTask(s); only >= 0) {
    // One task subscribes: nothing to route, no list of targets.
    outbox_.Send(only, &schema, std::move(values),
                 anchors != nullptr ? anchors->AnchorsFor(only) : Outbox::AnchorList());
  } else {
    targets_.clear();
    router_.Route(s, values, targets_);
    n = SendToTargets(schema, std::move(values), anchors);
  }
  TaskMetrics::Bump(metrics_.emitted);
  return n;
}

std::size_t Emitter::ForwardRow(int stream, const topology::RowRef& row, AnchorSource* anchors) {
  const topology::StreamSchema& schema = router_.Schema(stream);
  CheckSize(schema, row.size());
  if (schema.direct) ThrowNotDirect(schema);
  targets_.clear();
  if (router_.RoutesWithoutValues(stream) && !debug_) {
    router_.Route(stream, no_values_, targets_);
  } else {
    row.LoadValues(row_values_);
    if (debug_) LogEmit(schema, -1, row_values_);
    router_.Route(stream, row_values_, targets_);
  }
  for (int task : targets_) {
    outbox_.SendRow(task, &schema, row,
                    anchors != nullptr ? anchors->AnchorsFor(task) : Outbox::AnchorList());
  }
  TaskMetrics::Bump(metrics_.emitted);
  return targets_.size();
}

std::size_t Emitter::SendToTargets(const topology::StreamSchema& schema, topology::Values&& values,
                                   AnchorSource* anchors) {
  const auto anchors_for = [anchors](int task) {
    return anchors != nullptr ? anchors->AnchorsFor(task) : Outbox::AnchorList();
  };
  const std::size_t n = targets_.size();
  for (std::size_t i = 0; i + 1 < n; ++i) {
    outbox_.Send(targets_[i], &schema, topology::Values(values), anchors_for(targets_[i]));
  }
  if (n > 0) {
    outbox_.Send(targets_[n - 1], &schema, std::move(values), anchors_for(targets_[n - 1]));
  }
  return n;
}

void Emitter::LogEmit(const topology::StreamSchema& schema, int direct_task,
                      const topology::Values& values) const {
  spdlog::info("emit {}:{} task {} -> {} {}", schema.component, schema.stream,
               context_.GetThisTaskId(), direct_task, topology::ToString(values));
}

std::size_t Emitter::EmitRows(std::string_view stream, std::size_t count,
                              topology::RowFiller& filler) {
  const int s = ResolveStream(stream);
  const topology::StreamSchema& schema = router_.Schema(s);
  if (schema.direct) ThrowNotDirect(schema);
  // Built in place unless debug logging wants every row as values first.
  const int only_task = debug_ ? -1 : router_.OnlyTask(s);
  const bool route_first = !debug_ && only_task < 0 && router_.RoutesWithoutValues(s);
  const bool cells = !debug_ && filler.FillsCells();
  if (cells && only_task >= 0 && outbox_.IsLocal(only_task)) {
    return EmitRowsTo(only_task, schema, count, filler);
  }
  std::size_t sent = 0;
  for (std::size_t i = 0; i < count; ++i) {
    int task = only_task;
    if (route_first) {
      targets_.clear();
      router_.Route(s, no_values_, targets_);
      if (targets_.size() == 1) task = targets_[0];
    }
    topology::RowBatch* batch = cells && task >= 0 ? outbox_.OpenRow(task) : nullptr;
    if (batch != nullptr) {
      std::size_t n = 0;
      try {
        n = filler.FillCells(i, *batch);
        if (n != schema.fields->size()) ThrowWrongSize(schema, n);
      } catch (...) {
        batch->DropOpenCells();  // the next row must not start with this one's cells
        throw;
      }
      outbox_.EndRow(task, &schema, n);
      ++sent;
    } else if (task >= 0) {
      topology::Values& values = outbox_.Begin();
      filler.Fill(i, values);
      CheckSize(schema, values.size());
      outbox_.Commit(task, &schema);
      ++sent;
    } else {
      // Several targets (or none, or a grouping that reads the values): built, then sent.
      topology::Values values;
      filler.Fill(i, values);
      CheckSize(schema, values.size());
      if (debug_) LogEmit(schema, -1, values);
      if (!route_first) {
        targets_.clear();
        router_.Route(s, values, targets_);
      }
      sent += SendToTargets(schema, std::move(values), nullptr);
    }
    TaskMetrics::Bump(metrics_.emitted);
  }
  return sent;
}

std::size_t Emitter::EmitRowsTo(int task, const topology::StreamSchema& schema, std::size_t count,
                                topology::RowFiller& filler) {
  if (const topology::RowBatch* built = filler.BuiltRows(); built != nullptr) {
    return CopyRowsTo(task, schema, count, *built);
  }
  const std::size_t fields = schema.fields->size();
  std::size_t i = 0;
  while (i < count) {
    const Outbox::RowRun run = outbox_.OpenRun(task);
    const std::size_t end = i + std::min(count - i, run.room);
    try {
      for (; i < end; ++i) {
        const std::size_t n = filler.FillCells(i, *run.batch);
        if (n != fields) ThrowWrongSize(schema, n);
        run.batch->EndRow(&schema, n, 0);
      }
    } catch (...) {
      run.batch->DropOpenCells();  // the next row must not start with this one's cells
      outbox_.EndRun(run);
      TaskMetrics::Bump(metrics_.emitted, i);
      throw;
    }
    outbox_.EndRun(run);
  }
  TaskMetrics::Bump(metrics_.emitted, count);
  return count;
}

// The rows before the first of the wrong size go out, as EmitRowsTo sends them.
std::size_t Emitter::CopyRowsTo(int task, const topology::StreamSchema& schema, std::size_t count,
                                const topology::RowBatch& built) {
  const std::size_t fields = schema.fields->size();
  std::size_t good = 0;
  while (good < count && built[good].size() == fields) ++good;
  for (std::size_t i = 0; i < good;) {
    const Outbox::RowRun run = outbox_.OpenRun(task);
    const std::size_t end = i + std::min(good - i, run.room);
    run.batch->AppendRows(&schema, built, i, end);
    outbox_.EndRun(run);
    i = end;
  }
  TaskMetrics::Bump(metrics_.emitted, good);
  if (good < count) ThrowWrongSize(schema, built[good].size());
  return count;
}

void Emitter::ThrowDirectMisuse(int stream, int task) const {
  const topology::StreamSchema& schema = router_.Schema(stream);
  if (router_.AcceptsRegular(stream, task)) {
    throw std::invalid_argument("Cannot emitDirect to a task expecting a regular grouping");
  }
  if (!schema.direct) {
    throw std::invalid_argument(
        fmt::format("Cannot emitDirect on stream [{}] of component [{}]: it is not declared "
                    "direct",
                    schema.stream, schema.component));
  }
  throw std::invalid_argument(
      fmt::format("Cannot emitDirect to task {}: it does not subscribe to stream [{}] of "
                  "component [{}]",
                  task, schema.stream, schema.component));
}

}  // namespace tempest::runtime

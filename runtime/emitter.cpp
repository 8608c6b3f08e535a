#include "runtime/emitter.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

namespace tempest::runtime {

Emitter::Emitter(const topology::TopologyContext& context, const Router::Options& router_options,
                 Outbox outbox, TaskMetrics& metrics)
    : context_(context),
      router_(context, router_options),
      outbox_(std::move(outbox)),
      metrics_(metrics),
      debug_(context.GetTopologyConfig().debug) {}

std::size_t Emitter::Emit(std::string_view stream, int direct_task, topology::Values&& values,
                          AnchorSource* anchors) {
  const int s = router_.StreamIndex(stream);
  if (s < 0) {
    throw std::invalid_argument(
        fmt::format("component '{}' emitted on undeclared stream '{}' (declared: {})",
                    context_.GetThisComponentId(), stream, router_.DeclaredStreams()));
  }
  const topology::StreamSchema& schema = router_.Schema(s);
  if (values.size() != schema.fields->size()) {
    throw std::invalid_argument(fmt::format(
        "Tuple created with wrong number of fields. Expected {} fields but got {} fields "
        "(stream '{}' of component '{}' declares {})",
        schema.fields->size(), values.size(), schema.stream, schema.component,
        schema.fields->ToString()));
  }
  if (debug_) {
    spdlog::info("emit {}:{} task {} -> {} {}", schema.component, schema.stream,
                 context_.GetThisTaskId(), direct_task, topology::ToString(values));
  }
  const auto anchors_for = [anchors](int task) {
    return anchors != nullptr ? anchors->AnchorsFor(task) : Outbox::AnchorList();
  };
  std::size_t n = 1;
  if (direct_task >= 0) {
    if (!router_.AcceptsDirect(s, direct_task)) ThrowDirectMisuse(s, direct_task);
    outbox_.Send(direct_task, &schema, std::move(values), anchors_for(direct_task));
  } else {
    if (schema.direct) {
      throw std::invalid_argument(
          fmt::format("Cannot emit on direct stream [{}] of component [{}] with Emit; use "
                      "EmitDirect",
                      schema.stream, schema.component));
    }
    targets_.clear();
    router_.Route(s, values, targets_);
    n = targets_.size();
    for (std::size_t i = 0; i + 1 < n; ++i) {
      outbox_.Send(targets_[i], &schema, topology::Values(values), anchors_for(targets_[i]));
    }
    if (n > 0) {
      outbox_.Send(targets_[n - 1], &schema, std::move(values), anchors_for(targets_[n - 1]));
    }
  }
  TaskMetrics::Bump(metrics_.emitted);
  return n;
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

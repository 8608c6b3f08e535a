#pragma once

// A bolt that reports gauges, for multi-process runs: the supervisor (the test process)
// registers it directly, the `tempest worker` processes load it from gauge_plugin.so.

#include <cstdint>
#include <memory>

#include "topology/bolt.h"
#include "topology/component_registry.h"

namespace tempest::testing {

// Acks and counts its inputs; reports "rows" (inputs this task executed) and "tasks" (1) at
// end-of-stream, summed over the tasks by the run summary. Its own metrics, registered in
// Prepare: counter "seen" and meter "marks" (+1 per input), histogram "ones" (1 per input),
// gauge "task" (its task id). Inputs whose first value is a multiple of 10 count as dropped
// (cause "tenth") besides.
class GaugeBolt : public topology::Bolt {
 public:
  void Prepare(const topology::TopologyContext& context, topology::OutputCollector& out) override {
    out_ = &out;
    seen_ = &context.RegisterCounter("seen");
    marks_ = &context.RegisterMeter("marks");
    ones_ = &context.RegisterHistogram("ones");
    context.RegisterGauge("task").Set(context.GetThisTaskId());
  }
  void Execute(const topology::Tuple& input) override {
    ++rows_;
    seen_->Inc();
    marks_->Mark();
    ones_->Update(1);
    if (const int64_t* id = input.GetValue(0).IfInt(); id != nullptr && *id % 10 == 0) {
      out_->ReportDropped("tenth");
    }
    out_->Ack(input);
  }
  void OnEndOfStream() override {
    out_->ReportGauge("rows", rows_);
    out_->ReportGauge("tasks", 1);
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  topology::OutputCollector* out_ = nullptr;
  uint64_t rows_ = 0;
  topology::Counter* seen_ = nullptr;
  topology::Meter* marks_ = nullptr;
  topology::Histogram* ones_ = nullptr;
};

inline void RegisterGaugeBolt(topology::ComponentRegistry& registry) {
  registry.AddBolt<GaugeBolt>("GaugeBolt");
}

}  // namespace tempest::testing

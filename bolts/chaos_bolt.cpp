#include "bolts/chaos_bolt.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>

namespace tempest::bolts {
namespace {

void CheckFraction(const char* key, double f) {
  if (!(f >= 0.0 && f <= 1.0)) {  // also rejects NaN
    throw std::invalid_argument(fmt::format("`{}` must be within [0, 1], not {}", key, f));
  }
}

}  // namespace

void ValidateChaosBoltConfig(const ChaosBoltConfig& config) {
  CheckFraction("fail_fraction", config.fail_fraction);
  CheckFraction("throw_fraction", config.throw_fraction);
  // A little slack, so that e.g. 0.7 + 0.3 is not rejected for rounding.
  if (config.fail_fraction + config.throw_fraction > 1.0 + 1e-9) {
    throw std::invalid_argument(
        fmt::format("`fail_fraction` + `throw_fraction` must be at most 1, not {} + {}",
                    config.fail_fraction, config.throw_fraction));
  }
  if (config.exit_after < 0) {
    throw std::invalid_argument(
        fmt::format("`exit_after` must be 0 (never) or more tuples, not {}", config.exit_after));
  }
  if (config.delay_ms < 0) {
    throw std::invalid_argument(
        fmt::format("`delay_ms` must be 0 or more milliseconds, not {}", config.delay_ms));
  }
}

ChaosBolt::ChaosBolt(ChaosBoltConfig config, topology::Fields input_fields)
    : config_(config), fields_(std::move(input_fields)) {
  ValidateChaosBoltConfig(config_);
}

void ChaosBolt::Prepare(const topology::TopologyContext& context,
                        topology::OutputCollector& collector) {
  out_ = &collector;
  rng_.seed(config_.seed ^ static_cast<uint64_t>(context.GetThisTaskIndex()));
  if (config_.exit_after > 0 && !context.IsRestarted()) {
    if (context.IsWorkerProcess()) {
      until_exit_ = config_.exit_after;
    } else {
      spdlog::warn(
          "ChaosBolt '{}' task {}: exit_after needs a multi-process run (--workers 2 or "
          "more); ignored",
          context.GetThisComponentId(), context.GetThisTaskId());
    }
  }
}

void ChaosBolt::Execute(const topology::Tuple& input) {
  Handle(input);
  if (until_exit_ > 0 && --until_exit_ == 0) {
    spdlog::warn("ChaosBolt: exit_after reached: the worker process exits now (simulated crash)");
    // A crash, on purpose: no cleanup, no flush; the supervisor restarts the worker.
    ::_exit(86);
  }
}

void ChaosBolt::Handle(const topology::Tuple& input) {
  if (config_.delay_ms > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(config_.delay_ms));
  const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
  if (u < config_.fail_fraction) {
    out_->Fail(input);
    return;
  }
  if (u < config_.fail_fraction + config_.throw_fraction) {
    throw std::runtime_error("ChaosBolt: injected failure");
  }
  out_->Emit(input, input.GetValues());
  out_->Ack(input);
}

void ChaosBolt::DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const {
  declarer.Declare(fields_);
}

}  // namespace tempest::bolts

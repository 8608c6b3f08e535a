#include "spouts/test_word_spout.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "topology/splitmix.h"

namespace tempest::spouts {

void ValidateTestWordSpoutConfig(const TestWordSpoutConfig& config) {
  if (config.interval_ms < 0) {
    throw std::invalid_argument(
        fmt::format("`interval_ms` must be 0 or more milliseconds, not {}", config.interval_ms));
  }
}

TestWordSpout::TestWordSpout(TestWordSpoutConfig config, std::function<Clock::time_point()> now)
    : config_(config), now_(std::move(now)) {
  ValidateTestWordSpoutConfig(config_);
}

std::string_view TestWordSpout::WordFor(uint64_t seed, uint64_t n) noexcept {
  return kTestWords[topology::SplitMix64Mix(seed + (n + 1) * topology::kSplitMix64Gamma) %
                    kTestWords.size()];
}

void TestWordSpout::Open(const topology::TopologyContext& context,
                         topology::SpoutOutputCollector& collector) {
  out_ = &collector;
  next_ = static_cast<uint64_t>(context.GetThisTaskIndex());
  stride_ = std::max<uint64_t>(1, context.GetThisComponentTasks().size());
  next_due_ = now_();
}

topology::NextResult TestWordSpout::NextTuple() {
  const bool fresh_left = config_.count == 0 || next_ < config_.count;
  if (replay_.empty() && !fresh_left) return topology::NextResult::kExhausted;
  const Clock::time_point now = now_();
  if (config_.interval_ms > 0 && now < next_due_) return topology::NextResult::kIdle;
  uint64_t n;
  if (!replay_.empty()) {
    n = replay_.front();
    replay_.pop_front();
  } else {
    n = next_;
    next_ += stride_;
  }
  out_->Emit({WordFor(config_.seed, n)}, static_cast<int64_t>(n));
  next_due_ = now + std::chrono::milliseconds(config_.interval_ms);
  return topology::NextResult::kEmitted;
}

void TestWordSpout::Fail(const topology::Value& message_id) {
  if (const int64_t* n = message_id.IfInt(); n != nullptr && *n >= 0) {
    replay_.push_back(static_cast<uint64_t>(*n));
  }
}

void TestWordSpout::DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const {
  declarer.Declare({"word"});
}

}  // namespace tempest::spouts

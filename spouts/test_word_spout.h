#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <string_view>

#include "topology/spout.h"

namespace tempest::spouts {

// Config of TestWordSpout; the names are its YAML keys.
struct TestWordSpoutConfig {
  uint64_t count = 0;         // words to emit over all tasks, then exhausted; 0 = unbounded
  int64_t interval_ms = 100;  // pause between two emits of a task (Storm's pace); 0 = no pause
  uint64_t seed = 0;          // picks the words (see TestWordSpout)
};

// Checks: interval_ms >= 0. Throws std::invalid_argument.
void ValidateTestWordSpoutConfig(const TestWordSpoutConfig& config);

// Storm's word list, in Storm's order.
inline constexpr std::array<std::string_view, 5> kTestWords = {"nathan", "mike", "jackson", "golda",
                                                               "bertels"};

// Storm's TestWordSpout: emits field `word`, one word per NextTuple at most every interval_ms
// (it returns kIdle until the interval has passed; it never sleeps). Word number n (0, 1, 2, …)
// is kTestWords[SplitMix64(seed + (n + 1) * 0x9E3779B97F4A7C15) % 5], where SplitMix64 is the
// splitmix64 finaliser; it is tracked with message id n and re-emitted (same word) when failed.
// With parallelism p, task i emits the numbers congruent to i mod p, so the words of a run do not
// depend on p; with count > 0 the tasks are exhausted once numbers 0..count-1 are emitted and no
// replay is queued. One instance per task, used by that task's thread only.
class TestWordSpout final : public topology::Spout {
 public:
  using Clock = std::chrono::steady_clock;

  // `now` is the time source of the pacing (tests inject a fake one).
  explicit TestWordSpout(TestWordSpoutConfig config = {},
                         std::function<Clock::time_point()> now = Clock::now);

  void Open(const topology::TopologyContext& context,
            topology::SpoutOutputCollector& collector) override;
  topology::NextResult NextTuple() override;
  void Fail(const topology::Value& message_id) override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

  // The word number n gets for a seed.
  static std::string_view WordFor(uint64_t seed, uint64_t n) noexcept;

 private:
  TestWordSpoutConfig config_;
  std::function<Clock::time_point()> now_;
  topology::SpoutOutputCollector* out_ = nullptr;
  uint64_t next_ = 0;
  uint64_t stride_ = 1;
  std::deque<uint64_t> replay_;
  Clock::time_point next_due_{};
};

}  // namespace tempest::spouts

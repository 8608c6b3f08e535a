// TestWordSpout (Storm's): seeded words from Storm's list, paced without sleeping, bounded by
// count, split across tasks, failed words replayed.
#include "spouts/test_word_spout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "../support/builtin_test_support.h"

namespace tempest::spouts {
namespace {

using testing::FakeSpoutCollector;
using testing::SpoutContext;
using topology::NextResult;
using topology::Value;
using topology::Values;
using namespace std::chrono_literals;

// The documented word rule, written independently of the spout.
std::string ExpectedWord(uint64_t seed, uint64_t n) {
  static const char* const kWords[] = {"nathan", "mike", "jackson", "golda", "bertels"};
  uint64_t z = seed + (n + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return kWords[z % 5];
}

struct FakeClock {
  TestWordSpout::Clock::time_point now{std::chrono::hours(1)};
  std::function<TestWordSpout::Clock::time_point()> Fn() {
    return [this] { return now; };
  }
};

TEST(TestWordSpoutTest, DefaultsAreStorms) {
  const TestWordSpoutConfig c;
  EXPECT_EQ(c.count, 0u);
  EXPECT_EQ(c.interval_ms, 100);
  EXPECT_EQ(c.seed, 0u);
  EXPECT_THAT(kTestWords, ::testing::ElementsAre("nathan", "mike", "jackson", "golda", "bertels"));
  EXPECT_THROW(TestWordSpout({.interval_ms = -1}), std::invalid_argument);
  topology::OutputFieldsDeclarer d("words");
  TestWordSpout().DeclareOutputFields(d);
  const auto streams = d.TakeStreams();
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_EQ(streams[0]->stream, "default");
  EXPECT_EQ(*streams[0]->fields, (topology::Fields{"word"}));
}

TEST(TestWordSpoutTest, EmitsCountSeededWordsThenIsExhausted) {
  TestWordSpout spout({.count = 200, .interval_ms = 0, .seed = 5});
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  for (int i = 0; i < 200; ++i) ASSERT_EQ(spout.NextTuple(), NextResult::kEmitted);
  EXPECT_EQ(spout.NextTuple(), NextResult::kExhausted);
  ASSERT_EQ(out.emitted.size(), 200u);
  std::set<std::string> seen;
  for (uint64_t n = 0; n < 200; ++n) {
    EXPECT_EQ(out.emitted[n].stream, "default");
    EXPECT_EQ(out.emitted[n].values, (Values{ExpectedWord(5, n)}));
    EXPECT_EQ(out.emitted[n].message_id, Value(static_cast<int64_t>(n)));
    EXPECT_EQ(TestWordSpout::WordFor(5, n), ExpectedWord(5, n));
    seen.insert(out.emitted[n].values[0].AsString());
  }
  EXPECT_EQ(seen.size(), 5u);  // every word of the list shows up
  // Another seed, other words.
  int differ = 0;
  for (uint64_t n = 0; n < 50; ++n) differ += TestWordSpout::WordFor(6, n) != ExpectedWord(5, n);
  EXPECT_GT(differ, 10);
}

TEST(TestWordSpoutTest, PacesByReturningIdleUntilTheIntervalHasPassed) {
  FakeClock clock;
  TestWordSpout spout({.count = 0, .interval_ms = 100}, clock.Fn());
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  EXPECT_EQ(spout.NextTuple(), NextResult::kEmitted);  // the first word at once
  EXPECT_EQ(spout.NextTuple(), NextResult::kIdle);
  clock.now += 99ms;
  EXPECT_EQ(spout.NextTuple(), NextResult::kIdle);
  clock.now += 1ms;
  EXPECT_EQ(spout.NextTuple(), NextResult::kEmitted);
  EXPECT_EQ(spout.NextTuple(), NextResult::kIdle);
  clock.now += 250ms;  // a late call emits one word, not a burst
  EXPECT_EQ(spout.NextTuple(), NextResult::kEmitted);
  EXPECT_EQ(spout.NextTuple(), NextResult::kIdle);
  EXPECT_EQ(out.emitted.size(), 3u);
}

TEST(TestWordSpoutTest, UnboundedWhenCountIsZero) {
  TestWordSpout spout({.count = 0, .interval_ms = 0});
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(spout.NextTuple(), NextResult::kEmitted);
}

TEST(TestWordSpoutTest, AFailedWordIsReplayedWithItsId) {
  TestWordSpout spout({.count = 3, .interval_ms = 0, .seed = 1});
  FakeSpoutCollector out;
  spout.Open(SpoutContext(), out);
  ASSERT_EQ(spout.NextTuple(), NextResult::kEmitted);  // 0
  spout.Fail(Value(0));
  ASSERT_EQ(spout.NextTuple(), NextResult::kEmitted);  // 0 again
  ASSERT_EQ(spout.NextTuple(), NextResult::kEmitted);  // 1
  ASSERT_EQ(spout.NextTuple(), NextResult::kEmitted);  // 2
  ASSERT_EQ(spout.NextTuple(), NextResult::kExhausted);
  spout.Fail(Value(2));
  ASSERT_EQ(spout.NextTuple(), NextResult::kEmitted);  // 2 again, after the end
  ASSERT_EQ(spout.NextTuple(), NextResult::kExhausted);
  std::vector<int64_t> ids;
  for (const auto& e : out.emitted) {
    ids.push_back(e.message_id.AsInt());
    EXPECT_EQ(e.values, (Values{ExpectedWord(1, static_cast<uint64_t>(ids.back()))}));
  }
  EXPECT_EQ(ids, (std::vector<int64_t>{0, 0, 1, 2, 2}));
}

TEST(TestWordSpoutTest, TasksSplitTheNumbersSoWordsDoNotDependOnParallelism) {
  std::map<int64_t, std::string> all;
  for (int task = 0; task < 3; ++task) {
    TestWordSpout spout({.count = 100, .interval_ms = 0, .seed = 9});
    FakeSpoutCollector out;
    spout.Open(SpoutContext(3, task), out);
    while (spout.NextTuple() == NextResult::kEmitted) {
    }
    for (const auto& e : out.emitted) {
      EXPECT_EQ(e.message_id.AsInt() % 3, task);
      EXPECT_TRUE(all.emplace(e.message_id.AsInt(), e.values[0].AsString()).second);
    }
  }
  ASSERT_EQ(all.size(), 100u);
  for (const auto& [n, word] : all) EXPECT_EQ(word, ExpectedWord(9, static_cast<uint64_t>(n)));
}

}  // namespace
}  // namespace tempest::spouts

// TestWordCounter (Storm's): running per-task counts, anchored emits, acks; and a real run with
// TestWordSpout whose counts match an independent count of the seeded words.
#include "bolts/test_word_counter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "../support/builtin_test_support.h"
#include "../support/test_components.h"
#include "runtime/local_cluster.h"
#include "spouts/test_word_spout.h"
#include "topology/topology_builder.h"

namespace tempest::bolts {
namespace {

using testing::BoltContext;
using testing::FakeBoltCollector;
using topology::Fields;
using topology::StreamSchema;
using topology::Tuple;
using topology::Values;

TEST(TestWordCounterTest, EmitsTheRunningCountOfEachWordAnchoredAndAcks) {
  TestWordCounter bolt;
  topology::OutputFieldsDeclarer d("count");
  bolt.DeclareOutputFields(d);
  const auto streams = d.TakeStreams();
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_EQ(streams[0]->stream, "default");
  EXPECT_EQ(*streams[0]->fields, (Fields{"word", "count"}));

  FakeBoltCollector out;
  bolt.Prepare(BoltContext(), out);
  StreamSchema schema;
  schema.fields = std::make_shared<const Fields>(Fields{"n", "word"});  // `word` by name
  std::vector<Tuple> inputs;
  for (const char* w : {"a", "b", "a", "a", "c", "b"})
    inputs.emplace_back(&schema, 1, Values{0, w});
  for (const Tuple& t : inputs) bolt.Execute(t);
  ASSERT_EQ(out.emitted.size(), 6u);
  const std::vector<Values> expected = {{"a", 1}, {"b", 1}, {"a", 2}, {"a", 3}, {"c", 1}, {"b", 2}};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(out.emitted[i].values, expected[i]);
    EXPECT_EQ(out.emitted[i].stream, "default");
    EXPECT_EQ(out.emitted[i].anchors, (std::vector<const Tuple*>{&inputs[i]}));
  }
  EXPECT_EQ(out.log, (std::vector<std::string>{"emit", "ack", "emit", "ack", "emit", "ack", "emit",
                                               "ack", "emit", "ack", "emit", "ack"}));
}

TEST(TestWordCounterTest, AnInputWithoutAStringWordThrows) {
  TestWordCounter bolt;
  FakeBoltCollector out;
  bolt.Prepare(BoltContext(), out);
  StreamSchema no_word;
  no_word.fields = std::make_shared<const Fields>(Fields{"text"});
  EXPECT_THROW(bolt.Execute(Tuple(&no_word, 1, Values{"a"})), std::invalid_argument);
  StreamSchema int_word;
  int_word.fields = std::make_shared<const Fields>(Fields{"word"});
  EXPECT_THROW(bolt.Execute(Tuple(&int_word, 1, Values{1})), std::invalid_argument);
  EXPECT_TRUE(out.log.empty());
}

// Storm's test topology: TestWordSpout → TestWordCounter (fields grouping on word) → recorder.
TEST(TestWordCounterRunTest, CountsMatchTheSeededWords) {
  constexpr uint64_t kCount = 2000;
  constexpr uint64_t kSeed = 3;
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b("words");
  b.SetSpout(
      "words",
      [] {
        return std::make_unique<spouts::TestWordSpout>(
            spouts::TestWordSpoutConfig{.count = kCount, .interval_ms = 0, .seed = kSeed});
      },
      2);
  b.SetBolt(
       "count", [] { return std::make_unique<TestWordCounter>(); }, 3)
      .FieldsGrouping("words", {"word"});
  b.SetBolt("sink", [recorder] {
     return std::make_unique<testing::RecordingBolt>(recorder);
   }).GlobalGrouping("count");
  const runtime::RunSummary s = runtime::LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(s.Find("words")->emitted, kCount);
  EXPECT_EQ(s.Find("count")->acked, kCount);

  std::map<std::string, int64_t> expected;
  for (uint64_t n = 0; n < kCount; ++n)
    ++expected[std::string(spouts::TestWordSpout::WordFor(kSeed, n))];
  // One task counts each word, so the counts emitted for a word are exactly 1..total.
  std::map<std::string, std::vector<int64_t>> counts;
  for (const auto& r : recorder->records()) {
    counts[r.values[0].AsString()].push_back(r.values[1].AsInt());
  }
  ASSERT_EQ(counts.size(), expected.size());
  for (auto& [word, seen] : counts) {
    std::sort(seen.begin(), seen.end());
    std::vector<int64_t> one_to_n(static_cast<std::size_t>(expected[word]));
    std::iota(one_to_n.begin(), one_to_n.end(), 1);
    EXPECT_EQ(seen, one_to_n) << word;
  }
}

// In a run the counter takes whole batches; a row without a string word still fails alone, with
// the error Execute reports for it.
TEST(TestWordCounterRunTest, ABadRowInABatchFailsAloneAndTheOthersCount) {
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b("words");
  b.SetSpout("words", [] {
    return std::make_unique<testing::ListSpout>(
        Fields{"word"},
        std::vector<Values>{{"a"}, {7}, {"a long word past the inline cells"}, {"a"}});
  });
  b.SetBolt("count", [] { return std::make_unique<TestWordCounter>(); }).GlobalGrouping("words");
  b.SetBolt("sink", [recorder] {
     return std::make_unique<testing::RecordingBolt>(recorder);
   }).GlobalGrouping("count");
  const runtime::RunSummary s = runtime::LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(s.Find("count")->executed, 4u);
  EXPECT_EQ(s.Find("count")->acked, 3u);
  EXPECT_EQ(s.Find("count")->failed, 1u);
  EXPECT_EQ(s.Find("count")->errors, 1u);
  EXPECT_EQ(s.Find("words")->acked, 3u);
  EXPECT_EQ(s.Find("words")->failed, 1u);
  std::vector<Values> got;
  for (const auto& r : recorder->records()) got.push_back(r.values);
  EXPECT_EQ(got,
            (std::vector<Values>{{"a", 1}, {"a long word past the inline cells", 1}, {"a", 2}}));
}

}  // namespace
}  // namespace tempest::bolts

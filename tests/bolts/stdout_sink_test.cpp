// StdoutSink: one JSON object line per tuple on stdout, acked; whole lines from several tasks.
#include "bolts/stdout_sink.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "../support/builtin_test_support.h"
#include "runtime/local_cluster.h"
#include "spouts/generator_spout.h"
#include "topology/topology_builder.h"

namespace tempest::bolts {
namespace {

using testing::BoltContext;
using testing::FakeBoltCollector;
using topology::Fields;
using topology::List;
using topology::StreamSchema;
using topology::Tuple;
using topology::Value;
using topology::Values;

TEST(StdoutSinkTest, PrintsEachTupleAsAJsonObjectLineAndAcks) {
  StdoutSink sink;
  topology::OutputFieldsDeclarer d("out");
  sink.DeclareOutputFields(d);
  EXPECT_TRUE(d.TakeStreams().empty());

  FakeBoltCollector out;
  sink.Prepare(BoltContext(), out);
  StreamSchema schema;
  schema.fields = std::make_shared<const Fields>(Fields{"word", "count", "avg", "l"});
  ::testing::internal::CaptureStdout();
  sink.Execute(Tuple(&schema, 1, Values{"na\"than", 3, 1.0, Value(List{Value()})}));
  sink.Execute(Tuple(&schema, 1, Values{Value(), -1, 0.5, Value(List{})}));
  sink.OnEndOfStream();
  const std::string printed = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(printed,
            "{\"word\":\"na\\\"than\",\"count\":3,\"avg\":1.0,\"l\":[null]}\n"
            "{\"word\":null,\"count\":-1,\"avg\":0.5,\"l\":[]}\n");
  EXPECT_EQ(out.log, (std::vector<std::string>{"ack", "ack"}));
}

TEST(StdoutSinkTest, SeveralTasksPrintWholeLines) {
  // The same sink in a real run with three tasks, printing to a temporary file instead of stdout
  // (the run's own log lines would otherwise mix in).
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  constexpr uint64_t kCount = 3000;
  topology::TopologyBuilder b("print");
  b.SetSpout("gen", [] {
    return std::make_unique<spouts::GeneratorSpout>(
        spouts::GeneratorSpoutConfig{.count = kCount, .keys = 10, .payload_bytes = 3});
  });
  b.SetBolt(
       "print", [file] { return std::make_unique<StdoutSink>(file); }, 3)
      .ShuffleGrouping("gen");
  const runtime::RunSummary s = runtime::LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(s.Find("print")->acked, kCount);

  std::rewind(file);
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, file)) > 0;) text.append(buf, n);
  std::fclose(file);
  std::vector<std::string> lines = testing::SplitLines(text);
  std::vector<std::string> expected;
  for (uint64_t id = 0; id < kCount; ++id) {
    expected.push_back("{\"id\":" + std::to_string(id) + ",\"key\":" + std::to_string(id % 10) +
                       ",\"ts\":" + std::to_string(id) + ",\"payload\":\"xxx\"}");
  }
  std::sort(lines.begin(), lines.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(lines, expected);
}

}  // namespace
}  // namespace tempest::bolts

// LogInfoBolt (Storm's): logs each tuple at info level, acks it.
#include "bolts/log_info_bolt.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "../support/builtin_test_support.h"
#include "../support/log_capture.h"

namespace tempest::bolts {
namespace {

TEST(LogInfoBoltTest, LogsEachTupleAtInfoAndAcks) {
  std::optional<testing::LogCapture> logged(std::in_place);
  LogInfoBolt bolt;
  topology::OutputFieldsDeclarer d("log");
  bolt.DeclareOutputFields(d);
  EXPECT_TRUE(d.TakeStreams().empty());
  testing::FakeBoltCollector out;
  bolt.Prepare(testing::BoltContext(), out);
  topology::StreamSchema schema;
  schema.component = "words";
  schema.fields = std::make_shared<const topology::Fields>(topology::Fields{"word", "count"});
  bolt.Execute(topology::Tuple(&schema, 4, topology::Values{"golda", 2}));
  bolt.Execute(topology::Tuple(&schema, 5, topology::Values{"mike", 1}));
  const std::string text = logged->Text();
  logged.reset();

  EXPECT_EQ(text, "info words:default[4] [\"golda\",2]\ninfo words:default[5] [\"mike\",1]\n");
  EXPECT_EQ(out.log, (std::vector<std::string>{"ack", "ack"}));
}

}  // namespace
}  // namespace tempest::bolts

// LogInfoBolt (Storm's): logs each tuple at info level, acks it.
#include "bolts/log_info_bolt.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "../support/builtin_test_support.h"

namespace tempest::bolts {
namespace {

TEST(LogInfoBoltTest, LogsEachTupleAtInfoAndAcks) {
  std::ostringstream logged;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(logged);
  auto logger = std::make_shared<spdlog::logger>("capture", sink);
  logger->set_pattern("%l %v");
  logger->set_level(spdlog::level::info);
  const std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  spdlog::set_default_logger(logger);

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
  spdlog::set_default_logger(previous);

  EXPECT_EQ(logged.str(),
            "info words:default[4] [\"golda\",2]\ninfo words:default[5] [\"mike\",1]\n");
  EXPECT_EQ(out.log, (std::vector<std::string>{"ack", "ack"}));
}

}  // namespace
}  // namespace tempest::bolts

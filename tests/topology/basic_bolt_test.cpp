#include "topology/basic_bolt.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace tempest::topology {
namespace {

// Records what the adapted bolt does through its collector.
class FakeCollector : public OutputCollector {
 public:
  struct Emitted {
    std::string stream;
    int task;
    std::vector<const Tuple*> anchors;
    Values values;
  };
  std::vector<Emitted> emitted;
  std::vector<std::string> log;

  void Ack(const Tuple& t) override { log.push_back("ack " + t.GetString(0)); }
  void Fail(const Tuple& t) override { log.push_back("fail " + t.GetString(0)); }
  void ResetTimeout(const Tuple&) override { log.push_back("reset"); }
  void ReportError(std::string_view m) override { log.push_back("error " + std::string(m)); }

 protected:
  void DoEmit(std::string_view stream, int task, Anchors anchors, Values&& values) override {
    emitted.push_back({std::string(stream), task, {anchors.begin(), anchors.end()}, values});
    log.push_back("emit");
  }
};

class Upper : public BasicBolt {
 public:
  void Execute(const Tuple& input, BasicOutputCollector& out) override {
    const std::string& s = input.GetString(0);
    if (s == "fail") throw FailedException("asked to fail");
    if (s == "boom") throw std::runtime_error("boom");
    out.Emit({s + "!"});
    out.Emit("side", {s});
  }
  void DeclareOutputFields(OutputFieldsDeclarer& d) const override { d.Declare({"s"}); }
};

TopologyContext NoContext() {
  auto spec = std::make_shared<const TopologySpec>();
  return TopologyContext(spec, std::make_shared<const TaskLayout>(*spec), 1);
}

TEST(BasicBoltTest, AnchorsEveryEmitToTheInputAndAcksAfterExecute) {
  auto bolt = AdaptBasicBolt(std::make_unique<Upper>());
  FakeCollector out;
  const TopologyContext context = NoContext();
  bolt->Prepare(context, out);
  const StreamSchema schema;
  const Tuple in(&schema, 1, {"hi"});
  bolt->Execute(in);
  ASSERT_EQ(out.emitted.size(), 2u);
  EXPECT_EQ(out.emitted[0].stream, "default");
  EXPECT_EQ(out.emitted[0].values, (Values{"hi!"}));
  EXPECT_EQ(out.emitted[0].anchors, (std::vector<const Tuple*>{&in}));
  EXPECT_EQ(out.emitted[1].stream, "side");
  EXPECT_EQ(out.emitted[1].anchors, (std::vector<const Tuple*>{&in}));
  EXPECT_EQ(out.log, (std::vector<std::string>{"emit", "emit", "ack hi"}));
}

TEST(BasicBoltTest, FailedExceptionFailsTheInputQuietly) {
  auto bolt = AdaptBasicBolt(std::make_unique<Upper>());
  FakeCollector out;
  const TopologyContext context = NoContext();
  bolt->Prepare(context, out);
  const StreamSchema schema;
  bolt->Execute(Tuple(&schema, 1, {"fail"}));
  EXPECT_EQ(out.log, (std::vector<std::string>{"fail fail"}));
}

TEST(BasicBoltTest, OtherExceptionsReachTheExecutorWithoutAnAck) {
  auto bolt = AdaptBasicBolt(std::make_unique<Upper>());
  FakeCollector out;
  const TopologyContext context = NoContext();
  bolt->Prepare(context, out);
  const StreamSchema schema;
  EXPECT_THROW(bolt->Execute(Tuple(&schema, 1, {"boom"})), std::runtime_error);
  EXPECT_TRUE(out.log.empty());
}

}  // namespace
}  // namespace tempest::topology

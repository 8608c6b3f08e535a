#include "topology/basic_bolt.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "../support/builtin_test_support.h"

namespace tempest::topology {
namespace {

using testing::BoltContext;
using testing::FakeBoltCollector;

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

TEST(BasicBoltTest, AnchorsEveryEmitToTheInputAndAcksAfterExecute) {
  auto bolt = AdaptBasicBolt(std::make_unique<Upper>());
  FakeBoltCollector out;
  const auto context = BoltContext();
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
  EXPECT_EQ(out.log, (std::vector<std::string>{"emit", "emit", "ack"}));
  ASSERT_EQ(out.acked.size(), 1u);
  EXPECT_EQ(out.acked[0].GetString(0), "hi");
}

TEST(BasicBoltTest, FailedExceptionFailsTheInputQuietly) {
  auto bolt = AdaptBasicBolt(std::make_unique<Upper>());
  FakeBoltCollector out;
  const auto context = BoltContext();
  bolt->Prepare(context, out);
  const StreamSchema schema;
  bolt->Execute(Tuple(&schema, 1, {"fail"}));
  EXPECT_EQ(out.log, (std::vector<std::string>{"fail"}));
  ASSERT_EQ(out.failed.size(), 1u);
  EXPECT_EQ(out.failed[0].GetString(0), "fail");
}

TEST(BasicBoltTest, OtherExceptionsReachTheExecutorWithoutAnAck) {
  auto bolt = AdaptBasicBolt(std::make_unique<Upper>());
  FakeBoltCollector out;
  const auto context = BoltContext();
  bolt->Prepare(context, out);
  const StreamSchema schema;
  EXPECT_THROW(bolt->Execute(Tuple(&schema, 1, {"boom"})), std::runtime_error);
  EXPECT_TRUE(out.log.empty());
}

// Emit takes its values by forwarding reference: a braced list or an rvalue is handed on, an
// lvalue (const or not) is copied and left as it was.
TEST(OutputCollectorTest, EmitCopiesAnLvalueAndHandsOnAnRvalue) {
  FakeBoltCollector out;
  const StreamSchema schema;
  const Tuple in(&schema, 1, {"a"});
  Values mine{"x", 1};
  const Values fixed{"y", 2};
  out.Emit(mine);
  out.Emit("side", in, fixed);
  out.Emit("side", {&in}, {"z", 3});
  out.Emit(Values(mine));
  EXPECT_EQ(mine, (Values{"x", 1}));
  ASSERT_EQ(out.emitted.size(), 4u);
  EXPECT_EQ(out.emitted[0].values, (Values{"x", 1}));
  EXPECT_EQ(out.emitted[1].values, (Values{"y", 2}));
  EXPECT_EQ(out.emitted[1].anchors, (std::vector<const Tuple*>{&in}));
  EXPECT_EQ(out.emitted[2].values, (Values{"z", 3}));
  EXPECT_EQ(out.emitted[3].values, (Values{"x", 1}));
}

}  // namespace
}  // namespace tempest::topology

// Every validation error, with its exact message: a topology that cannot run never starts.
#include <gtest/gtest.h>

#include <string>

#include "../support/test_components.h"
#include "topology/errors.h"
#include "topology/topology_builder.h"

namespace tempest::topology {
namespace {

using testing::LambdaBolt;
using testing::ListSpout;

SpoutFactory Spout(Fields fields = {"word"}, std::string stream = "default") {
  return [=] { return std::make_unique<ListSpout>(fields, std::vector<Values>{}, stream); };
}

BoltFactory Bolt(std::map<std::string, Fields> streams = {}, bool direct = false) {
  return [=] {
    return std::make_unique<LambdaBolt>(
        streams, [](const Tuple&, OutputCollector&, const TopologyContext&) {},
        std::function<void(OutputCollector&)>{}, direct);
  };
}

std::string BuildError(const TopologyBuilder& b) {
  try {
    b.Build();
  } catch (const InvalidTopologyException& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ValidationTest, AValidTopologyBuilds) {
  TopologyBuilder b("ok");
  b.SetSpout("words", Spout(), 2);
  b.SetBolt("count", Bolt({{"default", {"word", "n"}}}), 3).FieldsGrouping("words", {"word"});
  b.SetBolt("sink", Bolt()).GlobalGrouping("count");
  const auto spec = b.Build();
  ASSERT_EQ(spec->components.size(), 3u);
  const StreamSchema* s = spec->Find("count")->FindStream("default");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(*s->fields, (Fields{"word", "n"}));
  EXPECT_EQ(s->component, "count");
}

TEST(ValidationTest, ASpoutsFailedStreamHasItsFields) {
  TopologyBuilder b;
  b.SetSpout("words", Spout({"word", "ts"})).FailedStream("dead");
  b.SetBolt("letters", Bolt()).ShuffleGrouping("words", "dead");
  const auto spec = b.Build();
  const StreamSchema* dead = spec->Find("words")->FindStream("dead");
  ASSERT_NE(dead, nullptr);
  EXPECT_EQ(*dead->fields, (Fields{"word", "ts"}));
  EXPECT_EQ(dead->component, "words");

  TopologyBuilder same;
  same.SetSpout("words", Spout()).FailedStream("default");
  EXPECT_EQ(BuildError(same),
            "Component: [words] failed to declare its output fields: failed_stream \"default\" "
            "is a stream spout \"words\" declares itself; name another");
}

TEST(ValidationTest, UnknownSourceComponent) {
  TopologyBuilder b;
  b.SetSpout("words", Spout());
  b.SetBolt("count", Bolt()).ShuffleGrouping("wrods");
  EXPECT_EQ(BuildError(b), "Component: [count] subscribes from non-existent component [wrods]");
}

TEST(ValidationTest, UnknownSourceStream) {
  TopologyBuilder b;
  b.SetSpout("words", Spout());
  b.SetBolt("count", Bolt()).ShuffleGrouping("words", "nouns");
  EXPECT_EQ(BuildError(b),
            "Component: [count] subscribes from non-existent stream: [nouns] of component "
            "[words]");
}

TEST(ValidationTest, GroupingOnUndeclaredField) {
  TopologyBuilder b;
  b.SetSpout("words", Spout({"word", "ts"}));
  b.SetBolt("count", Bolt()).FieldsGrouping("words", {"user_id", "word"});
  EXPECT_EQ(BuildError(b),
            "Component: [count] subscribes from stream: [default] of component [words] + with "
            "non-existent fields: [user_id] (declared: [word, ts])");
}

TEST(ValidationTest, PartialKeyOnUndeclaredField) {
  TopologyBuilder b;
  b.SetSpout("words", Spout({"word"}));
  b.SetBolt("count", Bolt()).PartialKeyGrouping("words", {"w"});
  EXPECT_EQ(BuildError(b),
            "Component: [count] subscribes from stream: [default] of component [words] + with "
            "non-existent fields: [w] (declared: [word])");
}

TEST(ValidationTest, FieldsGroupingWithoutFields) {
  TopologyBuilder b;
  b.SetSpout("words", Spout());
  b.SetBolt("count", Bolt()).FieldsGrouping("words", Fields{});
  EXPECT_EQ(BuildError(b),
            "Component: [count] subscribes from stream: [default] of component [words] with a "
            "FIELDS grouping that names no fields");
}

TEST(ValidationTest, DirectGroupingOnARegularStream) {
  TopologyBuilder b;
  b.SetSpout("words", Spout());
  b.SetBolt("count", Bolt()).DirectGrouping("words");
  EXPECT_EQ(BuildError(b),
            "Component: [count] subscribes with a DIRECT grouping to stream: [default] of "
            "component [words], which is not declared direct");
}

TEST(ValidationTest, RegularGroupingOnADirectStream) {
  TopologyBuilder b;
  b.SetSpout("words", Spout());
  b.SetBolt("router", Bolt({{"routed", {"word"}}}, /*direct=*/true)).ShuffleGrouping("words");
  b.SetBolt("count", Bolt()).ShuffleGrouping("router", "routed");
  EXPECT_EQ(BuildError(b),
            "Component: [count] subscribes with a SHUFFLE grouping to direct stream: [routed] of "
            "component [router]; a direct stream takes only a DIRECT grouping");
}

TEST(ValidationTest, ParallelismBelowOne) {
  TopologyBuilder b;
  b.SetSpout("words", Spout());
  b.SetBolt("count", Bolt(), 0).ShuffleGrouping("words");
  EXPECT_EQ(BuildError(b), "Component: [count] has parallelism 0; parallelism must be at least 1");
}

TEST(ValidationTest, DuplicateComponentId) {
  TopologyBuilder b;
  b.SetSpout("words", Spout());
  b.SetBolt("words", Bolt()).ShuffleGrouping("words");
  EXPECT_EQ(BuildError(b), "Spout has already been declared for id words");
}

TEST(ValidationTest, ReservedComponentId) {
  TopologyBuilder b;
  b.SetSpout("__acker", Spout());
  EXPECT_EQ(BuildError(b),
            "Component id [__acker] is reserved: ids starting with '__' belong to Tempest's system "
            "components");
}

TEST(ValidationTest, NoSpout) {
  TopologyBuilder b("lonely");
  b.SetBolt("count", Bolt());
  EXPECT_EQ(BuildError(b), "Topology 'lonely' has no spout: nothing would ever emit");
}

TEST(ValidationTest, MissingFactory) {
  TopologyBuilder b;
  b.SetSpout("words", SpoutFactory{});
  EXPECT_EQ(BuildError(b), "Spout: [words] has no factory");
}

TEST(ValidationTest, Cycle) {
  TopologyBuilder b("loop");
  b.SetSpout("words", Spout());
  b.SetBolt("a", Bolt({{"default", {"word"}}})).ShuffleGrouping("words").ShuffleGrouping("b");
  b.SetBolt("b", Bolt({{"default", {"word"}}})).ShuffleGrouping("a");
  EXPECT_EQ(BuildError(b),
            "Topology 'loop' has a cycle: a -> b -> a. Streams must form an acyclic graph so that "
            "end-of-stream reaches every task");
}

TEST(ValidationTest, SubscribingTwiceToOneStream) {
  TopologyBuilder b;
  b.SetSpout("words", Spout());
  b.SetBolt("count", Bolt()).ShuffleGrouping("words").AllGrouping("words");
  EXPECT_EQ(BuildError(b),
            "Component: [count] subscribes twice to stream: [default] of component [words]");
}

TEST(ValidationTest, CustomGroupingWithoutFactory) {
  TopologyBuilder b;
  b.SetSpout("words", Spout());
  b.SetBolt("count", Bolt()).CustomGrouping("words", CustomGroupingFactory{});
  EXPECT_EQ(BuildError(b),
            "Component: [count] subscribes from stream: [default] of component [words] with a "
            "CUSTOM grouping that has no factory");
}

TEST(ValidationTest, DeclaringAStreamTwice) {
  class TwiceSpout : public ListSpout {
   public:
    TwiceSpout() : ListSpout({"a"}, {}) {}
    void DeclareOutputFields(OutputFieldsDeclarer& d) const override {
      d.Declare({"a"});
      d.Declare({"b"});
    }
  };
  TopologyBuilder b;
  b.SetSpout("words", [] { return std::make_unique<TwiceSpout>(); });
  EXPECT_EQ(BuildError(b),
            "Component: [words] failed to declare its output fields: Fields for default already "
            "set (component 'words')");
}

}  // namespace
}  // namespace tempest::topology

namespace tempest::topology {
namespace {

// Validation walks the graph with an explicit stack: a chain of 100,000 bolts validates (the
// recursive walk overflowed the stack near 32,700), and a cycle at its end is still found.
TEST(ValidationTest, AChainOf100000BoltsValidatesAndItsCycleIsFound) {
  constexpr int kBolts = 100'000;
  TopologyBuilder b("chain");
  b.SetSpout("s", Spout({"word"}));
  for (int i = 0; i < kBolts; ++i) {
    b.SetBolt("b" + std::to_string(i), Bolt({{"default", {"word"}}}))
        .ShuffleGrouping(i == 0 ? "s" : "b" + std::to_string(i - 1));
  }
  EXPECT_EQ(b.Build()->components.size(), kBolts + 1u);

  TopologyBuilder cyclic("chain");
  cyclic.SetSpout("s", Spout({"word"}));
  for (int i = 0; i < kBolts; ++i) {
    BoltDeclarer d = cyclic.SetBolt("b" + std::to_string(i), Bolt({{"default", {"word"}}}));
    d.ShuffleGrouping(i == 0 ? "s" : "b" + std::to_string(i - 1));
    if (i == kBolts - 3) d.ShuffleGrouping("b" + std::to_string(kBolts - 1));
  }
  EXPECT_EQ(BuildError(cyclic),
            "Topology 'chain' has a cycle: b99997 -> b99998 -> b99999 -> b99997. Streams must "
            "form an acyclic graph so that end-of-stream reaches every task");
}

}  // namespace
}  // namespace tempest::topology

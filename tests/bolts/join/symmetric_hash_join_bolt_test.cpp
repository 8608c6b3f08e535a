// SymmetricHashJoinBolt in changelog mode, through a fake collector: `_op` read from the inputs
// (absent: +I; a bad one reported and dropped), passed through by inner joins, outputs anchored
// to the input and inputs acked at once, state_ttl_ms on an injected clock, pre-join filters and
// null keys on a preserved side padded at once, Flink's semi and anti join sequences, and the
// refusals.
#include "bolts/join/symmetric_hash_join_bolt.h"

#include <gtest/gtest.h>

#include <map>

#include "../../support/builtin_test_support.h"

namespace tempest::bolts {
namespace {

using testing::FakeBoltCollector;
using topology::Fields;
using topology::Tuple;
using topology::Value;
using topology::Values;

// Streams "orders" [id, who, _op] and "payments" [id, amount, _op] of component "src"; it also
// declares "refunds" [id, amount, _op], which the join does not subscribe to.
class Harness {
 public:
  Harness() {
    spec_ = std::make_shared<topology::TopologySpec>();
    topology::ComponentSpec src;
    src.id = "src";
    src.kind = topology::ComponentKind::kSpout;
    topology::ComponentSpec bolt;
    bolt.id = "join";
    for (const auto& [name, fields] : {std::pair{"orders", Fields{"id", "who", "_op"}},
                                       {"payments", Fields{"id", "amount", "_op"}},
                                       {"refunds", Fields{"id", "amount", "_op"}}}) {
      auto schema = std::make_shared<topology::StreamSchema>();
      schema->component = "src";
      schema->stream = name;
      schema->fields = std::make_shared<const Fields>(fields);
      src.streams.push_back(schema);
      schemas_[name] = schema.get();
      if (std::string_view(name) == "refunds") continue;
      topology::GroupingSpec g;
      g.type = topology::GroupingType::kGlobal;
      bolt.inputs.push_back({topology::GlobalStreamId{"src", name}, g});
    }
    spec_->components.push_back(src);
    spec_->components.push_back(bolt);
  }

  void Start(SymmetricHashJoinBoltConfig c) {
    bolt_ = std::make_unique<SymmetricHashJoinBolt>(std::move(c), [this] { return now; });
    auto layout = std::make_shared<const topology::TaskLayout>(*spec_);
    context_ =
        std::make_unique<topology::TopologyContext>(spec_, layout, layout->TasksOf("join").front());
    bolt_->Prepare(*context_, out);
  }
  // The rows emitted by this input, as "op field,field,...".
  std::vector<std::string> Send(const std::string& stream, Values v) {
    const std::size_t before = out.emitted.size();
    bolt_->Execute(Tuple(schemas_.at(stream), 1, std::move(v)));
    std::vector<std::string> rows;
    for (std::size_t i = before; i < out.emitted.size(); ++i) {
      const Values& r = out.emitted[i].values;
      std::string line = r.back().AsString() + " ";
      for (std::size_t f = 0; f + 1 < r.size(); ++f) line += (f > 0 ? "," : "") + r[f].ToString();
      rows.push_back(line);
    }
    return rows;
  }

  void Tick() { bolt_->OnTick(); }
  void End() { bolt_->OnEndOfStream(); }

  int64_t now = 0;
  FakeBoltCollector out;

 private:
  std::shared_ptr<topology::TopologySpec> spec_;
  std::map<std::string, const topology::StreamSchema*> schemas_;
  std::unique_ptr<topology::TopologyContext> context_;
  std::unique_ptr<SymmetricHashJoinBolt> bolt_;
};

SymmetricHashJoinBoltConfig Config(SymmetricJoinType type, std::string condition = "") {
  SymmetricHashJoinBoltConfig c;
  c.selector = JoinSelector::kStream;
  c.left = {"orders", {"id"}};
  c.right = {"payments", {"id"}};
  c.type = type;
  c.mode = SymmetricJoinMode::kChangelog;
  c.condition = std::move(condition);
  c.select = "orders:id, who, amount";
  return c;
}

using Rows = std::vector<std::string>;
const Value kNull;

TEST(SymmetricHashJoinBoltTest, InnerJoinPassesUpdatesThroughAndAcksEveryInputAtOnce) {
  Harness h;
  h.Start(Config(SymmetricJoinType::kInner));
  EXPECT_EQ(h.Send("orders", {1, "ann", kNull}), Rows{});  // no _op: +I
  EXPECT_EQ(h.Send("payments", {1, 30, "+I"}), Rows{"+I 1,\"ann\",30"});
  EXPECT_EQ(h.Send("payments", {1, 30, "-U"}), Rows{"-U 1,\"ann\",30"});
  EXPECT_EQ(h.Send("payments", {1, 35, "+U"}), Rows{"+U 1,\"ann\",35"});
  EXPECT_EQ(h.out.acked.size(), 4u);
  EXPECT_EQ(h.out.emitted.back().anchors.size(), 1u);  // the input that caused it
}

TEST(SymmetricHashJoinBoltTest, ABadOpIsReportedAckedAndDropped) {
  Harness h;
  h.Start(Config(SymmetricJoinType::kInner));
  EXPECT_EQ(h.Send("orders", {1, "ann", "upsert"}), Rows{});
  ASSERT_EQ(h.out.errors.size(), 1u);
  EXPECT_EQ(h.out.errors[0],
            "tuple src:orders[1] [1,\"ann\",\"upsert\"] has _op \"upsert\": expected +I, -U, +U "
            "or -D (or none); acked and dropped");
  EXPECT_EQ(h.out.dropped, 1u);
  EXPECT_EQ(h.out.dropped_by_cause, (topology::NamedCounts{{"bad_op", 1}}));
  EXPECT_EQ(h.Send("payments", {1, 30, "+I"}), Rows{});  // the order was not stored
}

TEST(SymmetricHashJoinBoltTest, AnInputTheJoinDoesNotNameIsReportedAckedAndDropped) {
  Harness h;
  h.Start(Config(SymmetricJoinType::kInner));
  EXPECT_EQ(h.Send("refunds", {1, 30, "+I"}), Rows{});
  ASSERT_EQ(h.out.errors.size(), 1u);
  EXPECT_EQ(h.out.errors[0],
            "tuple src:refunds[1] [1,30,\"+I\"] comes from \"refunds\", which the join does not "
            "name; acked and dropped");
  EXPECT_EQ(h.out.acked.size(), 1u);
  EXPECT_EQ(h.out.dropped_by_cause, (topology::NamedCounts{{"unknown_stream", 1}}));
}

TEST(SymmetricHashJoinBoltTest, FullJoinRetractsPaddedRowsAndBringsThemBack) {
  Harness h;
  h.Start(Config(SymmetricJoinType::kFull));
  EXPECT_EQ(h.Send("payments", {1, 30, "+I"}), Rows{"+I null,null,30"});
  EXPECT_EQ(h.Send("orders", {1, "ann", "+I"}), (Rows{"-D null,null,30", "+I 1,\"ann\",30"}));
  EXPECT_EQ(h.Send("orders", {1, "ann", "-D"}), (Rows{"-D 1,\"ann\",30", "+I null,null,30"}));
}

TEST(SymmetricHashJoinBoltTest, PreJoinFiltersAndNullKeysPadAPreservedSideAtOnce) {
  Harness h;
  h.Start(Config(SymmetricJoinType::kLeft, "who != 'test' AND payments:amount > 0"));
  EXPECT_EQ(h.Send("orders", {2, "test", "+I"}), Rows{"+I 2,\"test\",null"});
  EXPECT_EQ(h.Send("payments", {2, 5, "+I"}), Rows{});  // order 2 was never stored
  EXPECT_EQ(h.Send("orders", {2, "test", "-D"}), Rows{"-D 2,\"test\",null"});
  EXPECT_EQ(h.Send("orders", {kNull, "bob", "+I"}), Rows{"+I null,\"bob\",null"});
  EXPECT_EQ(h.Send("orders", {3, "cat", "+I"}), Rows{"+I 3,\"cat\",null"});
  EXPECT_EQ(h.Send("payments", {3, -1, "+I"}), Rows{});  // fails amount > 0: never stored
  EXPECT_EQ(h.Send("payments", {3, 4, "+I"}), (Rows{"-D 3,\"cat\",null", "+I 3,\"cat\",4"}));
}

TEST(SymmetricHashJoinBoltTest, RowsExpireSilentlyAfterTheTtlFromTheirLastWrite) {
  Harness h;
  SymmetricHashJoinBoltConfig c = Config(SymmetricJoinType::kInner);
  c.state_ttl_ms = 1000;
  h.Start(c);
  h.now = 0;
  EXPECT_EQ(h.Send("orders", {1, "ann", "+I"}), Rows{});
  h.now = 999;
  EXPECT_EQ(h.Send("payments", {1, 30, "+I"}), Rows{"+I 1,\"ann\",30"});
  h.now = 1000;  // the order, written at 0, is gone
  EXPECT_EQ(h.Send("payments", {1, 40, "+I"}), Rows{});
}

TEST(SymmetricHashJoinBoltTest, TicksExpireRowsWithoutInputAndTheGaugesShowIt) {
  Harness h;
  SymmetricHashJoinBoltConfig c = Config(SymmetricJoinType::kLeft);
  c.state_ttl_ms = 1000;
  h.Start(c);
  EXPECT_EQ(h.Send("orders", {1, "ann", "+I"}), Rows{"+I 1,\"ann\",null"});
  EXPECT_EQ(h.Send("orders", {2, "bob", "+I"}), Rows{"+I 2,\"bob\",null"});
  h.now = 500;
  EXPECT_EQ(h.Send("payments", {2, 9, "+I"}), (Rows{"-D 2,\"bob\",null", "+I 2,\"bob\",9"}));
  using G = std::vector<std::pair<std::string, uint64_t>>;
  h.now = 999;
  h.Tick();
  EXPECT_EQ(h.out.gauges, (G{{"state rows left", 2},
                             {"state rows right", 1},
                             {"state peak left", 2},
                             {"state peak right", 1}}));
  h.now = 1000;  // order 1 (written at 0) expires; order 2 was written again at 500 (its match)
  h.Tick();
  EXPECT_EQ(h.out.gauges[0], (std::pair<std::string, uint64_t>{"state rows left", 1}));
  h.now = 1500;
  h.Tick();
  EXPECT_EQ(h.out.gauges, (G{{"state rows left", 0},
                             {"state rows right", 0},
                             {"state peak left", 2},
                             {"state peak right", 1}}));
  EXPECT_EQ(h.out.emitted.size(), 4u);  // expiry is silent
}

// Flink's StreamingSemiAntiJoinOperatorTest: orders [line order id, shipping address] semi/anti
// joined with line orders [line order id, shipping mode] on the line order id (the order id,
// the same in every row, is left out). With retention: left 4000 ms, right 1000 ms.
SymmetricHashJoinBoltConfig SemiAnti(SymmetricJoinType type, bool retention) {
  SymmetricHashJoinBoltConfig c = Config(type);
  c.select = "orders:id, who";
  if (retention) {
    c.left.state_ttl_ms = 4000;
    c.right.state_ttl_ms = 1000;
  }
  return c;
}

TEST(SymmetricHashJoinBoltTest, FlinkLeftSemiJoinWithStateRetentionDisabledAndPerSide) {
  for (const bool retention : {false, true}) {
    Harness h;
    h.Start(SemiAnti(SymmetricJoinType::kLeftSemi, retention));
    h.now = 1;
    EXPECT_EQ(h.Send("orders", {"LineOrd#1", "3 Bellevue", "+I"}), Rows{});
    EXPECT_EQ(h.Send("orders", {"LineOrd#2", "3 Bellevue", "+I"}), Rows{});
    h.now = 3001;
    EXPECT_EQ(h.Send("payments", {"LineOrd#2", "AIR", "+I"}),
              Rows{"+I \"LineOrd#2\",\"3 Bellevue\""});
    EXPECT_EQ(h.Send("payments", {"LineOrd#2", "TRUCK", "+U"}), Rows{});
    EXPECT_EQ(h.Send("payments", {"LineOrd#2", "TRUCK", "-D"}), Rows{});
    // The match count drops to 0: the row is retracted, with the right input's kind.
    EXPECT_EQ(h.Send("payments", {"LineOrd#2", "AIR", "-D"}),
              Rows{"-D \"LineOrd#2\",\"3 Bellevue\""});
    h.now = 4001;  // with retention the left row of LineOrd#1 (written at 1) has expired
    EXPECT_EQ(h.Send("payments", {"LineOrd#1", "SHIP", "+I"}),
              retention ? Rows{} : Rows{"+I \"LineOrd#1\",\"3 Bellevue\""});
    h.now = 5001;  // with retention the right row SHIP (written at 4001) has expired
    EXPECT_EQ(h.Send("orders", {"LineOrd#1", "7238 Marsh", "+U"}),
              retention ? Rows{} : Rows{"+U \"LineOrd#1\",\"7238 Marsh\""});
  }
}

TEST(SymmetricHashJoinBoltTest, FlinkLeftAntiJoinWithStateRetentionDisabledAndPerSide) {
  for (const bool retention : {false, true}) {
    Harness h;
    h.Start(SemiAnti(SymmetricJoinType::kLeftAnti, retention));
    h.now = 1;
    EXPECT_EQ(h.Send("orders", {"LineOrd#1", "3 Bellevue", "+I"}),
              Rows{"+I \"LineOrd#1\",\"3 Bellevue\""});
    EXPECT_EQ(h.Send("orders", {"LineOrd#2", "3 Bellevue", "+I"}),
              Rows{"+I \"LineOrd#2\",\"3 Bellevue\""});
    h.now = 3001;
    EXPECT_EQ(h.Send("payments", {"LineOrd#2", "AIR", "+I"}),
              Rows{"-D \"LineOrd#2\",\"3 Bellevue\""});
    h.now = 4001;
    EXPECT_EQ(h.Send("payments", {"LineOrd#1", "RAIL", "+I"}),
              retention ? Rows{} : Rows{"-D \"LineOrd#1\",\"3 Bellevue\""});
    h.now = 5001;
    EXPECT_EQ(h.Send("orders", {"LineOrd#1", "23 W. River", "+U"}),
              retention ? Rows{"+U \"LineOrd#1\",\"23 W. River\""} : Rows{});
  }
}

TEST(SymmetricHashJoinBoltTest, AntiJoinBringsARowBackWhenItsLastMatchIsRetracted) {
  SymmetricHashJoinBoltConfig c = Config(SymmetricJoinType::kLeftAnti, "who != 'test'");
  c.select = "orders:id, who";
  Harness a;
  a.Start(c);
  EXPECT_EQ(a.Send("orders", {1, "ann", "+I"}), Rows{"+I 1,\"ann\""});
  EXPECT_EQ(a.Send("payments", {1, 5, "+I"}), Rows{"-D 1,\"ann\""});
  EXPECT_EQ(a.Send("payments", {1, 6, "+I"}), Rows{});
  EXPECT_EQ(a.Send("payments", {1, 5, "-D"}), Rows{});
  EXPECT_EQ(a.Send("payments", {1, 6, "-U"}), Rows{"+I 1,\"ann\""});
  // A row that can never match (its filter fails) is emitted as it comes, retraction included.
  EXPECT_EQ(a.Send("orders", {2, "test", "+I"}), Rows{"+I 2,\"test\""});
  EXPECT_EQ(a.Send("orders", {2, "test", "-D"}), Rows{"-D 2,\"test\""});
  EXPECT_EQ(a.Send("orders", {1, "ann", "-D"}), Rows{"-D 1,\"ann\""});
}

TEST(SymmetricHashJoinBoltTest, SelectOfASemiJoinAndAppendSettingsAreRefused) {
  SymmetricHashJoinBoltConfig semi = Config(SymmetricJoinType::kLeftSemi);
  semi.select = "orders:id, amount";
  Harness h;
  try {
    h.Start(semi);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "select: \"amount\" is a field of \"payments\", but a left_semi join emits left "
                 "rows only");
  }
  SymmetricHashJoinBoltConfig lag = Config(SymmetricJoinType::kInner);
  lag.lag_ms = 5;
  EXPECT_THROW(SymmetricHashJoinBolt{lag}, std::invalid_argument);
  SymmetricHashJoinBoltConfig op = Config(SymmetricJoinType::kInner);
  op.select = "orders:id, _op";
  try {
    SymmetricHashJoinBolt bolt(op);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "select: \"_op\" is added to every output row; select an input's own as "
                 "\"name:_op AS other_name\"");
  }
}

}  // namespace
}  // namespace tempest::bolts

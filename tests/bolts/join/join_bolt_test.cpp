// JoinBolt: Storm's nine TestJoinBolt cases with their data, checked row for row (Storm's test
// only counted them), then what Tempest adds — right and full joins (docs/contracts.md, "Join and
// window bolts"), keeping null probe keys, multi-field keys, AS aliases — and every error.
#include "bolts/join/join_bolt.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <deque>

#include "../../support/builtin_test_support.h"
#include "bolts/join/field_selector.h"

namespace tempest::bolts {
namespace {

using testing::FakeBoltCollector;
using topology::Fields;
using topology::Tuple;
using topology::Value;
using topology::Values;

const Fields kUserFields{"userId", "name", "city"};
const std::vector<Values> kUsers = {{1, "roshan", "san jose"},  {2, "harsha", "santa clara"},
                                    {3, "siva", "dublin"},      {4, "hugo", "san mateo"},
                                    {5, "suresh", "sunnyvale"}, {6, "guru", "palo alto"},
                                    {7, "arun", "bengaluru"},   {8, "satish", "mumbai"},
                                    {9, "mani", "bengaluru"},   {10, "priyank", "seattle"}};
const Fields kOrderFields{"orderId", "userId", "itemId", "price"};
const std::vector<Values> kOrders = {{11, 2, 21, 7}, {12, 2, 22, 3}, {13, 3, 23, 4},
                                     {14, 4, 24, 5}, {15, 5, 25, 2}, {16, 6, 26, 7},
                                     {17, 6, 27, 4}, {18, 7, 28, 2}, {19, 8, 29, 9}};
const Fields kStoreFields{"storeId", "storeName", "city"};
const std::vector<Values> kStores = {{1, "store1", "san jose"},
                                     {2, "store2", "santa clara"},
                                     {3, "store3", "dublin"},
                                     {4, "store4", "san mateo"},
                                     {5, "store5", "bengaluru"}};
const Fields kCityFields{"cityId", "cityName", "country"};
const std::vector<Values> kCities = {
    {1, "san jose", "US"},     {2, "santa clara", "US"}, {3, "dublin", "US"},
    {4, "san mateo", "US"},    {5, "sunnyvale", "US"},   {6, "palo alto", "US"},
    {7, "bengaluru", "India"}, {8, "mumbai", "India"},   {9, "chennai", "India"}};

// Streams of component "testSrc" (Storm's test names its streams), feeding bolt "join".
class JoinHarness {
 public:
  // Streams listed in `not_inputs` are declared by testSrc but not subscribed to by the bolt.
  explicit JoinHarness(std::vector<std::pair<std::string, Fields>> streams, int parallelism = 1,
                       std::vector<std::string> not_inputs = {}) {
    auto spec = std::make_shared<topology::TopologySpec>();
    topology::ComponentSpec src;
    src.id = "testSrc";
    src.kind = topology::ComponentKind::kSpout;
    topology::ComponentSpec bolt;
    bolt.id = "join";
    bolt.parallelism = parallelism;
    for (auto& [name, fields] : streams) {
      auto schema = std::make_shared<topology::StreamSchema>();
      schema->component = "testSrc";
      schema->stream = name;
      schema->fields = std::make_shared<const Fields>(fields);
      src.streams.push_back(schema);
      schemas_[name] = schema.get();
      topology::GroupingSpec g;
      g.type = topology::GroupingType::kGlobal;
      if (std::find(not_inputs.begin(), not_inputs.end(), name) != not_inputs.end()) continue;
      bolt.inputs.push_back({topology::GlobalStreamId{"testSrc", name}, g});
    }
    spec->components.push_back(src);
    spec->components.push_back(bolt);
    auto layout = std::make_shared<const topology::TaskLayout>(*spec);
    const int task = layout->TasksOf("join").front();
    context_ = std::make_unique<topology::TopologyContext>(spec, layout, task);
  }

  // Appends the rows as tuples of `stream`, in order (the window order).
  void Add(const std::string& stream, const std::vector<Values>& rows) {
    for (const Values& r : rows) tuples_.emplace_back(schemas_.at(stream), 1, r);
  }

  // Runs the rows through the join as the runtime does: the windowed-bolt adapter holds them
  // packed and fires one tumbling window of them all. Row i carries ack root i + 1, so each
  // output's anchors name the rows it joins (Anchored).
  // `window_length`: tuples per tumbling window (0: one window of them all).
  std::vector<Values> Run(JoinBoltConfig config, std::size_t window_length = 0) {
    const WindowConfig window = WindowConfig::Tumbling(WindowSpan::Count(
        static_cast<int64_t>(window_length > 0 ? window_length : tuples_.size())));
    auto bolt = AdaptWindowedBolt(std::make_unique<JoinBolt>(std::move(config)), window, {}, {});
    bolt->Prepare(*context_, out);
    uint64_t root = 0;
    for (Tuple& t : tuples_) {
      ++root;
      tempest::topology::TupleAccess::MutableAck(t).anchors = {{root, root << 32}};
      bolt->Execute(t);
    }
    std::vector<Values> rows;
    for (const auto& e : out.emitted) rows.push_back(e.values);
    return rows;
  }
  // Prepares the join with its own window and `clock`, for a test that drives time with ticks;
  // Send then runs tuples through it (untracked).
  topology::Bolt& Start(JoinBoltConfig config, WindowClock clock) {
    const WindowConfig window = config.window;
    bolt_ = AdaptWindowedBolt(std::make_unique<JoinBolt>(std::move(config)), window, {}, {},
                              std::move(clock));
    bolt_->Prepare(*context_, out);
    return *bolt_;
  }
  void Send(const std::string& stream, const std::vector<Values>& rows) {
    for (const Values& r : rows) bolt_->Execute(tuples_.emplace_back(schemas_.at(stream), 1, r));
  }

  // The rows an output is anchored to, in anchor order.
  std::vector<const Tuple*> Anchored(std::size_t output) const {
    std::vector<const Tuple*> rows;
    for (uint64_t root : out.emitted.at(output).anchor_roots) rows.push_back(&tuples_.at(root - 1));
    return rows;
  }
  std::string PrepareError(JoinBoltConfig config) {
    try {
      const WindowConfig window = config.window;
      auto bolt = AdaptWindowedBolt(std::make_unique<JoinBolt>(std::move(config)), window, {}, {});
      bolt->Prepare(*context_, out);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(prepared)";
  }

  FakeBoltCollector out;

 private:
  std::map<std::string, const topology::StreamSchema*> schemas_;
  std::deque<Tuple> tuples_;
  std::unique_ptr<topology::TopologyContext> context_;
  std::unique_ptr<topology::Bolt> bolt_;  // Start's
};

JoinBoltConfig Config(JoinBoltBuilder b) { return b.config(); }

const Value kNull;

TEST(JoinBoltStormTest, Trivial) {
  JoinHarness h({{"orders", kOrderFields}});
  h.Add("orders", kOrders);
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "orders", "orderId")
                                     .Select("orderId,userId,itemId,price")));
  EXPECT_EQ(rows, kOrders);
  ASSERT_EQ(h.out.emitted.size(), 9u);
  EXPECT_EQ(h.out.emitted[0].anchor_roots.size(), 1u);
}

TEST(JoinBoltStormTest, NestedKeys) {
  JoinHarness h({{"users", Fields{"outer"}}});
  std::vector<Values> nested;
  for (const Values& u : kUsers) {
    nested.push_back({Value(topology::Map{{"userId", u[0]}, {"name", u[1]}, {"city", u[2]}})});
  }
  h.Add("users", nested);
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "outer.userId")
                                     .Select("outer.name, outer.city")));
  std::vector<Values> expected;
  for (const Values& u : kUsers) expected.push_back({u[1], u[2]});
  EXPECT_EQ(rows, expected);
}

TEST(JoinBoltStormTest, ProjectionFieldsWithStreamName) {
  JoinHarness h({{"users", kUserFields}, {"stores", kStoreFields}});
  h.Add("stores", kStores);
  h.Add("users", kUsers);
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "city")
                                     .Join("stores", "city", "users")
                                     .Select("userId,name,storeName,users:city,stores:city")));
  EXPECT_EQ(rows, (std::vector<Values>{{1, "roshan", "store1", "san jose", "san jose"},
                                       {2, "harsha", "store2", "santa clara", "santa clara"},
                                       {3, "siva", "store3", "dublin", "dublin"},
                                       {4, "hugo", "store4", "san mateo", "san mateo"},
                                       {7, "arun", "store5", "bengaluru", "bengaluru"},
                                       {9, "mani", "store5", "bengaluru", "bengaluru"}}));
  // Every row is anchored to exactly the two tuples it joins.
  for (const auto& e : h.out.emitted) ASSERT_EQ(e.anchor_roots.size(), 2u);
  EXPECT_EQ(h.Anchored(4)[0]->GetString(1), "arun");
  EXPECT_EQ(h.Anchored(4)[1]->GetString(1), "store5");
}

TEST(JoinBoltStormTest, InnerJoin) {
  JoinHarness h({{"users", kUserFields}, {"orders", kOrderFields}});
  h.Add("orders", kOrders);
  h.Add("users", kUsers);
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
                                     .Join("orders", "userId", "users")
                                     .Select("userId,name,price")));
  EXPECT_EQ(rows, (std::vector<Values>{{2, "harsha", 7},
                                       {2, "harsha", 3},
                                       {3, "siva", 4},
                                       {4, "hugo", 5},
                                       {5, "suresh", 2},
                                       {6, "guru", 7},
                                       {6, "guru", 4},
                                       {7, "arun", 2},
                                       {8, "satish", 9}}));
}

TEST(JoinBoltStormTest, LeftJoin) {
  JoinHarness h({{"users", kUserFields}, {"orders", kOrderFields}});
  h.Add("orders", kOrders);
  h.Add("users", kUsers);
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
                                     .LeftJoin("orders", "userId", "users")
                                     .Select("userId,name,price")));
  EXPECT_EQ(rows, (std::vector<Values>{{1, "roshan", kNull},
                                       {2, "harsha", 7},
                                       {2, "harsha", 3},
                                       {3, "siva", 4},
                                       {4, "hugo", 5},
                                       {5, "suresh", 2},
                                       {6, "guru", 7},
                                       {6, "guru", 4},
                                       {7, "arun", 2},
                                       {8, "satish", 9},
                                       {9, "mani", kNull},
                                       {10, "priyank", kNull}}));
  EXPECT_EQ(h.out.emitted[0].anchor_roots.size(), 1u);  // a padded row: only the user
}

JoinHarness ThreeStreams(bool cities_before_stores) {
  JoinHarness h({{"users", kUserFields}, {"stores", kStoreFields}, {"cities", kCityFields}});
  h.Add("users", kUsers);
  if (cities_before_stores) {
    h.Add("cities", kCities);
    h.Add("stores", kStores);
  } else {
    h.Add("stores", kStores);
    h.Add("cities", kCities);
  }
  return h;
}

const std::vector<Values> kUsersStoresCities = {
    {"roshan", "store1", "san jose", "US"},   {"harsha", "store2", "santa clara", "US"},
    {"siva", "store3", "dublin", "US"},       {"hugo", "store4", "san mateo", "US"},
    {"arun", "store5", "bengaluru", "India"}, {"mani", "store5", "bengaluru", "India"}};

TEST(JoinBoltStormTest, ThreeStreamInnerJoin) {
  JoinHarness h = ThreeStreams(false);
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "city")
                                     .Join("stores", "city", "users")
                                     .Join("cities", "cityName", "stores")
                                     .Select("name,storeName,city,country")));
  EXPECT_EQ(rows, kUsersStoresCities);
  for (const auto& e : h.out.emitted) EXPECT_EQ(e.anchor_roots.size(), 3u);
}

TEST(JoinBoltStormTest, ThreeStreamLeftJoin1) {
  JoinHarness h = ThreeStreams(true);
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "city")
                                     .LeftJoin("stores", "city", "users")
                                     .LeftJoin("cities", "cityName", "users")
                                     .Select("name,storeName,city,country")));
  EXPECT_EQ(rows, (std::vector<Values>{{"roshan", "store1", "san jose", "US"},
                                       {"harsha", "store2", "santa clara", "US"},
                                       {"siva", "store3", "dublin", "US"},
                                       {"hugo", "store4", "san mateo", "US"},
                                       {"suresh", kNull, "sunnyvale", "US"},
                                       {"guru", kNull, "palo alto", "US"},
                                       {"arun", "store5", "bengaluru", "India"},
                                       {"satish", kNull, "mumbai", "India"},
                                       {"mani", "store5", "bengaluru", "India"},
                                       {"priyank", kNull, "seattle", kNull}}));
}

TEST(JoinBoltStormTest, ThreeStreamLeftJoin2DropsNullProbeKeys) {
  // The second join probes with the store's city: users without a store have none, and Storm
  // drops them even in a left join.
  JoinHarness h = ThreeStreams(true);
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "city")
                                     .LeftJoin("stores", "city", "users")
                                     .LeftJoin("cities", "cityName", "stores")
                                     .Select("name,storeName,city,country")));
  EXPECT_EQ(rows, kUsersStoresCities);
}

TEST(JoinBoltStormTest, ThreeStreamMixedJoin) {
  JoinHarness h = ThreeStreams(true);
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "city")
                                     .Join("stores", "city", "users")
                                     .LeftJoin("cities", "cityName", "users")
                                     .Select("name,storeName,city,country")));
  EXPECT_EQ(rows, kUsersStoresCities);
}

// Beyond Storm.

TEST(JoinBoltTest, NullProbeKeysKeepTreatsNullAsMatchingNothing) {
  JoinHarness h = ThreeStreams(true);
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "city")
                                     .LeftJoin("stores", "city", "users")
                                     .LeftJoin("cities", "cityName", "stores")
                                     .WithNullProbeKeys(true)
                                     .Select("name,storeName,city,country")));
  EXPECT_EQ(rows, (std::vector<Values>{{"roshan", "store1", "san jose", "US"},
                                       {"harsha", "store2", "santa clara", "US"},
                                       {"siva", "store3", "dublin", "US"},
                                       {"hugo", "store4", "san mateo", "US"},
                                       {"suresh", kNull, "sunnyvale", kNull},
                                       {"guru", kNull, "palo alto", kNull},
                                       {"arun", "store5", "bengaluru", "India"},
                                       {"satish", kNull, "mumbai", kNull},
                                       {"mani", "store5", "bengaluru", "India"},
                                       {"priyank", kNull, "seattle", kNull}}));
}

JoinHarness UsersAndOrders() {
  JoinHarness h({{"users", kUserFields}, {"orders", kOrderFields}});
  h.Add("users", {{1, "roshan", "san jose"}, {2, "harsha", "santa clara"}, {3, "siva", "dublin"}});
  h.Add("orders", {{11, 2, 21, 7}, {12, 4, 22, 3}, {13, 2, 23, 4}, {14, Value(), 24, 1}});
  return h;
}

// Two inputs (the probes' keys are looked up as the window is read): a probe with a null key is
// dropped (Storm), or with null_probe_keys: keep joins nothing and a left join pads it; the
// joined side's null key matches nothing either way.
TEST(JoinBoltTest, ANullProbeKeyOfATwoInputJoinIsDroppedOrKept) {
  for (const bool keep : {false, true}) {
    JoinHarness h({{"users", kUserFields}, {"orders", kOrderFields}});
    h.Add("users", {{1, "roshan", "san jose"}, {Value(), "nobody", "nowhere"}, {2, "harsha", "x"}});
    h.Add("orders", {{11, 2, 21, 7}, {14, Value(), 24, 1}, {13, 2, 23, 4}});
    const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
                                       .LeftJoin("orders", "userId", "users")
                                       .WithNullProbeKeys(keep)
                                       .Select("name, orderId")));
    std::vector<Values> expected = {{"roshan", kNull}, {"harsha", 11}, {"harsha", 13}};
    if (keep) expected.insert(expected.begin() + 1, Values{"nobody", kNull});
    EXPECT_EQ(rows, expected) << (keep ? "keep" : "drop");
  }
}

TEST(JoinBoltTest, RightJoinPadsUnmatchedJoinedTuplesAfterTheMatches) {
  JoinHarness h = UsersAndOrders();
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
                                     .RightJoin("orders", "userId", "users")
                                     .Select("users:userId, name, orderId, price AS amount")));
  EXPECT_EQ(rows, (std::vector<Values>{{2, "harsha", 11, 7},
                                       {2, "harsha", 13, 4},
                                       {kNull, kNull, 12, 3},     // user 4: no such user
                                       {kNull, kNull, 14, 1}}));  // null key: never matches
  EXPECT_EQ(h.out.emitted[2].anchor_roots.size(), 1u);
}

TEST(JoinBoltTest, FullJoinIsTheLeftRowsThenTheUnmatchedJoinedTuples) {
  JoinHarness h = UsersAndOrders();
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
                                     .FullJoin("orders", "userId", "users")
                                     .Select("users:userId, name, orderId")));
  EXPECT_EQ(rows, (std::vector<Values>{{1, "roshan", kNull},
                                       {2, "harsha", 11},
                                       {2, "harsha", 13},
                                       {3, "siva", kNull},
                                       {kNull, kNull, 12},
                                       {kNull, kNull, 14}}));
}

// A third input joined to orders, so probing with orders' own key (userId, as in Storm): the
// middle join's rows are collected, the last join's emitted as they are found, and each keeps
// its type's rules.
JoinHarness UsersOrdersPayments() {
  JoinHarness h({{"users", kUserFields},
                 {"orders", kOrderFields},
                 {"payments", {"payId", "userId", "amount"}}});
  h.Add("users", {{1, "roshan", "san jose"}, {2, "harsha", "santa clara"}, {3, "siva", "dublin"}});
  h.Add("orders", {{11, 2, 21, 7}, {12, 4, 22, 3}, {13, 2, 23, 4}, {14, Value(), 24, 1}});
  h.Add("payments", {{"p1", 2, 7}, {"p2", 4, 3}, {"p3", 99, 5}});
  return h;
}

TEST(JoinBoltTest, AFullJoinThenARightJoinKeepTheirRulesAtEachStep) {
  JoinHarness h = UsersOrdersPayments();
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
                                     .FullJoin("orders", "userId", "users")
                                     .RightJoin("payments", "userId", "orders")
                                     .Select("name, orders:orderId, payId")));
  // users full-joined to orders: roshan/-, harsha/11, harsha/13, siva/-, -/12, -/14; then
  // right-joined to payments on the order's userId: records without an order, or with a null
  // userId (14), have a null probe key and are dropped, and the unmatched payment p3 is padded.
  EXPECT_EQ(
      rows,
      (std::vector<Values>{
          {"harsha", 11, "p1"}, {"harsha", 13, "p1"}, {kNull, 12, "p2"}, {kNull, kNull, "p3"}}));
  ASSERT_EQ(h.out.emitted.size(), 4u);
  EXPECT_EQ(h.out.emitted[0].anchor_roots.size(), 3u);  // harsha, order 11, p1
  EXPECT_EQ(h.out.emitted[2].anchor_roots.size(), 2u);  // order 12, p2
  EXPECT_EQ(h.out.emitted[3].anchor_roots.size(), 1u);  // p3
}

TEST(JoinBoltTest, ARightJoinThenAnInnerJoinProbeWithTheRightSidesKey) {
  JoinHarness h = UsersOrdersPayments();
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
                                     .RightJoin("orders", "userId", "users")
                                     .Join("payments", "userId", "orders")
                                     .Select("name, orders:orderId, payId, amount")));
  EXPECT_EQ(rows, (std::vector<Values>{
                      {"harsha", 11, "p1", 7}, {"harsha", 13, "p1", 7}, {kNull, 12, "p2", 3}}));
}

// The joined inputs are regrouped by key inside the bolt; rows still come out in probe order,
// matches in window order, and unmatched tuples of a right or full join in window order.
TEST(JoinBoltTest, InterleavedKeysKeepStormsRowOrder) {
  JoinHarness h({{"a", Fields{"k", "v"}}, {"b", Fields{"k", "w"}}});
  h.Add("a", {{2, "a1"}, {1, "a2"}, {3, "a3"}, {2, "a4"}});
  const Value null;
  h.Add(
      "b",
      {{4, "b0"}, {1, "b1"}, {2, "b2"}, {null, "b3"}, {1, "b4"}, {5, "b5"}, {2, "b6"}, {4, "b7"}});
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "a", "k")
                                     .Join(JoinType::kFull, "b", {"k"}, "a")
                                     .Select("v, w")));
  EXPECT_EQ(rows, (std::vector<Values>{{"a1", "b2"},
                                       {"a1", "b6"},
                                       {"a2", "b1"},
                                       {"a2", "b4"},
                                       {"a3", null},
                                       {"a4", "b2"},
                                       {"a4", "b6"},
                                       {null, "b0"},
                                       {null, "b3"},
                                       {null, "b5"},
                                       {null, "b7"}}));
  // Each row is anchored to exactly the tuples whose values it carries.
  ASSERT_EQ(h.out.emitted.size(), rows.size());
  for (std::size_t i = 0; i < h.out.emitted.size(); ++i) {
    const auto& e = h.out.emitted[i];
    std::vector<Value> from_anchors;
    for (const Tuple* t : h.Anchored(i)) from_anchors.push_back(t->GetValue(1));
    std::vector<Value> from_row;
    for (const Value& v : e.values) {
      if (!v.IsNull()) from_row.push_back(v);
    }
    EXPECT_EQ(from_anchors, from_row);
  }
}

// A middle join's records point into its regrouped input; the last join reads them there (and
// probes with b's own key, as Storm does).
TEST(JoinBoltTest, InterleavedKeysThroughAMiddleJoin) {
  JoinHarness h({{"a", Fields{"k", "v"}}, {"b", Fields{"k", "w"}}, {"c", Fields{"m", "x"}}});
  h.Add("a", {{1, "a1"}, {2, "a2"}});
  h.Add("b", {{2, "b1"}, {1, "b2"}, {2, "b3"}, {1, "b4"}});
  h.Add("c", {{2, "c1"}, {1, "c2"}, {9, "c3"}, {1, "c4"}});
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "a", "k")
                                     .Join(JoinType::kInner, "b", {"k"}, "a")
                                     .Join(JoinType::kRight, "c", {"m"}, "b")
                                     .Select("v, w, x")));
  const Value null;
  EXPECT_EQ(rows, (std::vector<Values>{{"a1", "b2", "c2"},
                                       {"a1", "b2", "c4"},
                                       {"a1", "b4", "c2"},
                                       {"a1", "b4", "c4"},
                                       {"a2", "b1", "c1"},
                                       {"a2", "b3", "c1"},
                                       {null, null, "c3"}}));
}

TEST(JoinBoltTest, MultiFieldKeysMatchOnEveryPart) {
  JoinHarness h({{"a", Fields{"x", "y", "v"}}, {"b", Fields{"p", "q", "w"}}});
  h.Add("a", {{1, "k", "a1"}, {1, "j", "a2"}, {2, "k", "a3"}});
  h.Add("b", {{1, "k", "b1"}, {2, "k", "b2"}, {1, "k", "b3"}, {2, "j", "b4"}});
  const auto rows =
      h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "a", std::vector<std::string>{"x", "y"})
                       .Join(JoinType::kLeft, "b", {"p", "q"}, "a")
                       .Select("v, w")));
  EXPECT_EQ(rows, (std::vector<Values>{{"a1", "b1"}, {"a1", "b3"}, {"a2", kNull}, {"a3", "b2"}}));
}

// The tables keep their capacity and their groups' decoded keys between windows: a key of an
// earlier window matches nothing later, keys of another type never match, and 0.0 matches -0.0
// (Value's ==).
TEST(JoinBoltTest, KeysOfEarlierWindowsMatchNothing) {
  JoinHarness h({{"a", Fields{"k", "v"}}, {"b", Fields{"k", "w"}}});
  const std::string long_key(40, 'k');
  // Window 1: two groups, one with a heap-held string key.
  h.Add("b", {{"x", "b1"}, {long_key, "b2"}});
  h.Add("a", {{long_key, "a1"}, {"x", "a2"}});
  // Window 2: one group (int 7); a probes with window 1's long key and with the string "7".
  h.Add("b", {{7, "b3"}});
  h.Add("a", {{long_key, "a3"}, {"7", "a4"}, {7, "a5"}});
  // Window 3: a double key.
  h.Add("b", {{0.0, "b4"}, {1.5, "b5"}});
  h.Add("a", {{-0.0, "a6"}, {1, "a7"}});
  // Window 4: the int 7 and the string "7" as keys of one window; probes with 7.0 and 7.
  h.Add("b", {{7, "b6"}, {"7", "b7"}});
  h.Add("a", {{7.0, "a8"}, {7, "a9"}});
  const auto rows = h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "a", "k")
                                     .Join(JoinType::kLeft, "b", {"k"}, "a")
                                     .Select("v, w")),
                          4);
  EXPECT_EQ(rows, (std::vector<Values>{{"a1", "b2"},
                                       {"a2", "b1"},
                                       {"a3", kNull},
                                       {"a4", kNull},
                                       {"a5", "b3"},
                                       {"a6", "b4"},
                                       {"a7", kNull},
                                       {"a8", kNull},
                                       {"a9", "b6"}}));
}

TEST(JoinBoltTest, SourceSelectorNamesInputsByComponent) {
  // Both streams come from "testSrc": by source they are one input, and the join has one name.
  JoinHarness h({{"users", kUserFields}});
  h.Add("users", {{1, "roshan", "san jose"}});
  const auto rows = h.Run(
      Config(JoinBoltBuilder(JoinSelector::kSource, "testSrc", "userId").Select("TESTSRC:name")));
  EXPECT_EQ(rows, (std::vector<Values>{{"roshan"}}));  // the qualifier is case-insensitive
}

TEST(JoinBoltTest, OutputFieldsAreTheDescriptorsOrTheirAliases) {
  JoinBolt bolt(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
                           .Join("orders", "userId", "users")
                           .Select(" users:city , price AS amount, outer.name ")
                           .WithOutputStream("joined")));
  topology::OutputFieldsDeclarer d("join");
  bolt.DeclareOutputFields(d);
  const auto streams = d.TakeStreams();
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_EQ(streams[0]->stream, "joined");
  EXPECT_EQ(*streams[0]->fields, (Fields{"users:city", "amount", "outer.name"}));
}

TEST(JoinBoltTest, ATupleOfAnInputTheJoinDoesNotNameIsReportedOnce) {
  JoinHarness h({{"users", kUserFields}, {"orders", kOrderFields}}, 1, {"orders"});
  h.Add("orders", {{11, 2, 21, 7}, {12, 2, 22, 3}});
  h.Add("users", {{2, "harsha", "santa clara"}});
  const auto rows =
      h.Run(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId").Select("name")));
  EXPECT_EQ(rows, (std::vector<Values>{{"harsha"}}));
  ASSERT_EQ(h.out.errors.size(), 1u);
  EXPECT_NE(h.out.errors[0].find("comes from \"orders\", which the join does not name"),
            std::string::npos);
  // The tuple in the message is whole: a window holds every field of an input it cannot place.
  EXPECT_NE(h.out.errors[0].find("[11,2,21,7]"), std::string::npos) << h.out.errors[0];
}

std::string Error(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(JoinBoltErrorsTest, StormsJoinErrors) {
  EXPECT_EQ(Error([] {
              JoinBoltBuilder(JoinSelector::kStream, "s1", "k")
                  .Join("s2", "k", "s1")
                  .Join("s2", "k", "s1");
            }),
            "'s2' is already part of join. Cannot join with it more than once.");
  EXPECT_EQ(Error([] { JoinBoltBuilder(JoinSelector::kStream, "s1", "k").Join("s3", "k", "s2"); }),
            "Stream 's2' was not previously declared");
  EXPECT_EQ(Error([] { JoinBoltBuilder(JoinSelector::kStream, "s1", "k").Build(); }),
            "Must specify output fields via .select() method.");
  EXPECT_EQ(Error([] { JoinBoltBuilder(JoinSelector::kStream, "s1", "s1:k").Select("k").Build(); }),
            "Not expecting stream qualifier ':' in 's1:k'. Stream name 's1' is implicit in this "
            "context");
  EXPECT_EQ(Error([] {
              JoinBoltBuilder(JoinSelector::kStream, "s1", std::vector<std::string>{"a", "b"})
                  .Join("s2", "a", "s1");
            }),
            "'s2' joins on 1 key fields but 's1' has 2: the keys must pair up");
}

TEST(JoinBoltErrorsTest, AJoinTakesAtMost254Inputs) {
  const JoinFrom from{"s0", {"k"}};
  std::vector<JoinClause> joins;
  for (int i = 1; i < 254; ++i)
    joins.push_back({JoinType::kInner, fmt::format("s{}", i), {"k"}, "s0"});
  EXPECT_NO_THROW(ValidateJoinClauses(from, joins));
  joins.push_back({JoinType::kInner, "s254", {"k"}, "s0"});
  try {
    ValidateJoinClauses(from, joins);
    FAIL() << "255 inputs accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "a join takes at most 254 inputs; this one has 255");
  }
}

TEST(JoinBoltErrorsTest, FieldsAndInputsAreCheckedInPrepare) {
  JoinHarness h({{"users", kUserFields}, {"orders", kOrderFields}});
  EXPECT_EQ(h.PrepareError(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
                                      .Join("orders", "userId", "users")
                                      .Select("name, prize"))),
            "select: field \"prize\" is not declared by any input (users: userId, name, city; "
            "orders: orderId, userId, itemId, price)");
  EXPECT_EQ(h.PrepareError(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
                                      .Join("orders", "userId", "users")
                                      .Select("carts:name"))),
            "select: \"carts\" names no input of the join (names: users, orders)");
  EXPECT_EQ(h.PrepareError(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "uid")
                                      .Join("orders", "userId", "users")
                                      .Select("name"))),
            "join key \"uid\" is not declared by \"users\" (userId, name, city)");
  EXPECT_EQ(h.PrepareError(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
                                      .Join("carts", "userId", "users")
                                      .Select("name"))),
            "input testSrc:orders is \"orders\" by stream, which the join does not name (join "
            "names: users, carts)");
}

TEST(JoinBoltErrorsTest, ParallelismNeedsFieldsGroupingOnTheJoinKeyOrGlobal) {
  JoinBoltConfig c = Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
                                .Join("orders", "userId", "users")
                                .Select("name"));
  const std::vector<std::pair<topology::GlobalStreamId, Fields>> inputs = {
      {{"testSrc", "users"}, kUserFields}, {{"testSrc", "orders"}, kOrderFields}};
  topology::GroupingSpec on_key{topology::GroupingType::kFields, {"userId"}, {}};
  topology::GroupingSpec global{topology::GroupingType::kGlobal, {}, {}};
  topology::GroupingSpec shuffle{topology::GroupingType::kShuffle, {}, {}};
  topology::GroupingSpec other{topology::GroupingType::kFields, {"orderId"}, {}};
  EXPECT_EQ(Error([&] { ValidateJoinInputs(c, 3, inputs, {on_key, global}); }), "(no error)");
  EXPECT_EQ(Error([&] { ValidateJoinInputs(c, 1, inputs, {shuffle, shuffle}); }), "(no error)");
  EXPECT_EQ(Error([&] {
              ValidateJoinInputs(c, 3, inputs, {on_key, shuffle});
            }),
            "with parallelism 3, input \"orders\" must be fields-grouped on its join key [userId] "
            "(or global), or matching tuples can reach different tasks; it is SHUFFLE");
  EXPECT_EQ(Error([&] {
              ValidateJoinInputs(c, 2, inputs, {on_key, other});
            }),
            "with parallelism 2, input \"orders\" must be fields-grouped on its join key [userId] "
            "(or global), or matching tuples can reach different tasks; it is FIELDS [orderId]");
}

TEST(JoinBoltTest, TheBuilderDeclaresPerInputLateStreams) {
  JoinBoltBuilder b(JoinSelector::kStream, "users", "userId");
  b.Join("orders", "userId", "users")
      .Select("name, price")
      .WithTumblingWindow(WindowSpan::DurationMs(1000))
      .WithWindowConfig([] {
        WindowConfig w;
        w.timestamp_field = "ts";
        return w;
      }())
      .WithLateTupleStream("orders", "late_orders", Fields{"orderId", "ts"});
  EXPECT_EQ(b.config().joins[0].late_stream, "late_orders");
  EXPECT_EQ(b.config().window.length, WindowSpan::DurationMs(1000));  // kept by WithWindowConfig
  const std::unique_ptr<topology::Bolt> bolt = b.Build()();
  topology::OutputFieldsDeclarer d("join");
  bolt->DeclareOutputFields(d);
  std::vector<std::string> streams;
  for (const auto& s : d.TakeStreams()) streams.push_back(s->stream);
  EXPECT_EQ(streams, (std::vector<std::string>{"default", "late_orders"}));
  EXPECT_THROW(b.WithLateTupleStream("carts", "late", Fields{"x"}), std::invalid_argument);
}

TEST(FieldSelectorTest, ParsesStormsDescriptors) {
  FieldSelector s = FieldSelector::Parse(" stream1:x.y.z ");
  EXPECT_EQ(s.name, "stream1");
  EXPECT_EQ(s.path, (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(s.output_name, "stream1:x.y.z");
  s = FieldSelector::Parse(":x");
  EXPECT_EQ(s.name, "");
  EXPECT_EQ(s.output_name, "x");
  s = FieldSelector::Parse("users:city as town");
  EXPECT_EQ(s.name, "users");
  EXPECT_EQ(s.path, (std::vector<std::string>{"city"}));
  EXPECT_EQ(s.output_name, "town");
  s = FieldSelector::Parse("alias");  // a field that merely ends in "as"
  EXPECT_EQ(s.output_name, "alias");
  EXPECT_THROW(FieldSelector::Parse("a..b"), std::invalid_argument);
}

// The rows buffered for the window are a gauge (the windowed-bolt adapter's), reported on ticks
// and at the end: a fired window's rows count until the next window evicts them.
TEST(JoinBoltTest, TheRowsOfTheWindowAreReportedAsAGauge) {
  using Gauges = std::vector<std::pair<std::string, uint64_t>>;
  int64_t now = 1'000'000;
  JoinHarness h({{"users", kUserFields}, {"orders", kOrderFields}});
  topology::Bolt& bolt = h.Start(Config(JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
                                            .Join("orders", "userId", "users")
                                            .Select("users:name, orders:orderId")
                                            .WithTumblingWindow(WindowSpan::DurationMs(100))),
                                 [&now] { return now; });
  h.Send("users", {kUsers[1], kUsers[2]});
  h.Send("orders", {kOrders[0], kOrders[1], kOrders[2]});
  EXPECT_TRUE(h.out.gauges.empty());  // not per tuple
  now += 50;
  bolt.OnTick();
  EXPECT_EQ(h.out.gauges, (Gauges{{"window rows", 5}}));
  now += 50;  // t0 + 100: the window (t0 - 1, t0 + 99] fires
  bolt.OnTick();
  EXPECT_EQ(h.out.emitted.size(), 3u);  // harsha's two orders, siva's one
  EXPECT_EQ(h.out.gauges, (Gauges{{"window rows", 5}}));
  h.Send("orders", {kOrders[3]});
  now += 100;  // t0 + 200: the next window holds the new order, the first five leave
  bolt.OnTick();
  EXPECT_EQ(h.out.gauges, (Gauges{{"window rows", 1}}));
  bolt.OnEndOfStream();
  EXPECT_EQ(h.out.gauges, (Gauges{{"window rows", 0}}));
}

}  // namespace
}  // namespace tempest::bolts

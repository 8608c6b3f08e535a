// Task threads are named after their task, for top -H, perf and debuggers.
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "../support/test_components.h"
#include "runtime/local_cluster.h"
#include "topology/topology_builder.h"

namespace tempest::runtime {
namespace {

struct Names {
  std::mutex mu;
  std::set<std::string> seen;
  void Add(std::string n) {
    std::lock_guard lock(mu);
    seen.insert(std::move(n));
  }
};

class NamedSpout : public testing::ListSpout {
 public:
  explicit NamedSpout(std::shared_ptr<Names> names)
      : ListSpout({"x"}, {{1}, {2}}), names_(std::move(names)) {}
  topology::NextResult NextTuple() override {
    names_->Add(testing::ThisThreadName());
    return ListSpout::NextTuple();
  }

 private:
  std::shared_ptr<Names> names_;
};

TEST(ThreadNameTest, TaskThreadsCarryTheirTaskIdAndComponent) {
  auto names = std::make_shared<Names>();
  topology::TopologyBuilder t;
  // Task ids follow the sorted component ids: the bolt is task 1, the spout task 2.
  t.SetSpout("source", [=] { return std::make_unique<NamedSpout>(names); });
  t.SetBolt("a-rather-long-bolt-name", [=] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, topology::Fields>{},
         [=](const topology::Tuple& in, topology::OutputCollector& out,
             const topology::TopologyContext&) {
           names->Add(testing::ThisThreadName());
           out.Ack(in);
         });
   }).ShuffleGrouping("source");
  LocalCluster cluster(t.Build());
  const RunSummary s = cluster.Run();
  ASSERT_TRUE(s.completed) << s.error;
  // Linux keeps 15 characters of a thread name.
  EXPECT_EQ(names->seen, (std::set<std::string>{"t1 a-rather-lon", "t2 source"}));
}

}  // namespace
}  // namespace tempest::runtime

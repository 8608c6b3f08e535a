// /api/v1/: the run's topology, components and tasks as JSON, in the shapes of Storm UI's REST
// API.
#include "launch/rest_api.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tempest::launch {
namespace {

using nlohmann::json;

topology::ComponentSpec Component(std::string id, topology::ComponentKind kind, int tasks) {
  topology::ComponentSpec c;
  c.id = std::move(id);
  c.kind = kind;
  c.parallelism = tasks;
  return c;
}

runtime::TaskSnapshot Task(int task, std::string component) {
  runtime::TaskSnapshot t;
  t.task = task;
  t.component = std::move(component);
  return t;
}

class RestApiTest : public ::testing::Test {
 protected:
  RestApiTest() {
    spec_.name = "word count";
    spec_.components = {Component("gen", topology::ComponentKind::kSpout, 1),
                        Component("count", topology::ComponentKind::kBolt, 2)};
    run_.spec = &spec_;
    run_.uptime_seconds = 12.7;
    run_.workers = 2;
    run_.tasks = {Task(1, "gen"), Task(2, "count"), Task(3, "count"), Task(4, "__acker")};
    run_.tasks[0].emitted = 10;
    run_.tasks[0].acked = 8;
    run_.tasks[0].pending = 2;
    run_.tasks[0].complete_latency.counts[runtime::LatencyBuckets::Of(1024)] = 3;  // 1.024 ms
    run_.tasks[0].complete_latency.counts[runtime::LatencyBuckets::Of(3)] = 5;     // 3 µs
    run_.tasks[1].executed = 6;
    run_.tasks[1].gauges = {{"words", 5}};
    run_.tasks[2].executed = 4;
    run_.tasks[2].errors = 1;
    run_.tasks[2].gauges = {{"words", 7}};
    run_.tasks[2].last_error = "execute threw: bad row";
    run_.tasks[2].last_error_ms = 1796083200123;
    topology::InputSpec input;
    input.source = {"gen", "default"};
    input.grouping.type = topology::GroupingType::kFields;
    input.grouping.fields = {"word"};
    spec_.components[1].inputs = {input};
  }
  json Get(std::string_view target) {
    const std::optional<std::string> body = RestAnswer(target, run_);
    return body ? json::parse(*body) : json();
  }

  topology::TopologySpec spec_;
  RunView run_;
};

TEST_F(RestApiTest, TheTopologySummary) {
  EXPECT_EQ(Get("/api/v1/topology/summary"),
            json::parse(R"({"topologies": [{"id": "word count", "name": "word count",
              "status": "ACTIVE", "uptimeSeconds": 12, "tasksTotal": 3, "executorsTotal": 3,
              "workersTotal": 2}]})"));
}

TEST_F(RestApiTest, TheTopologyWithItsSpoutsAndBolts) {
  const json t = Get("/api/v1/topology/word%20count");
  EXPECT_EQ(t["name"], "word count");
  EXPECT_EQ(t["topologyStats"], json::parse(R"([{"window": ":all-time", "emitted": 10,
              "acked": 8, "failed": 0, "completeLatency": "0.386",
              "completeLatencyP50Ms": 0.003, "completeLatencyP99Ms": 1.024}])"));
  ASSERT_EQ(t["spouts"].size(), 1u);
  EXPECT_EQ(t["spouts"][0]["spoutId"], "gen");
  EXPECT_EQ(t["spouts"][0]["pending"], 2);
  EXPECT_EQ(t["bolts"], json::parse(R"([{"boltId": "count", "tasks": 2, "executors": 2,
              "emitted": 0, "executed": 10, "acked": 0, "failed": 0, "errors": 1, "dropped": 0,
              "gauges": {"words": 12}, "droppedByCause": {}, "executeLatency": "0.000", "executeLatencyP50Ms": 0.0,
              "executeLatencyP99Ms": 0.0, "metrics": {},
              "inputs": [{"component": "gen", "stream": "default", "grouping": "FIELDS",
                          "fields": ["word"]}]}])"));
  EXPECT_EQ(t["errors"], json::parse(R"([{"component": "count", "task": 3,
              "time": 1796083200123, "error": "execute threw: bad row"}])"));
  EXPECT_EQ(t["workers"], json::array());
  EXPECT_EQ(t["status"], "ACTIVE");
}

TEST_F(RestApiTest, WorkersWithTheirRestartsAndTheStatusTheRunIsIn) {
  run_.worker_status = {{0, 4242, 2, true, {1, 3}, 5}, {1, 0, 1, false, {2, 4}, 0}};
  run_.status = "INACTIVE";
  const json t = Get("/api/v1/topology/word%20count");
  EXPECT_EQ(t["workers"], json::parse(R"([
      {"index": 0, "pid": 4242, "running": true, "restarts": 2, "tasks": [1, 3],
       "droppedFrames": 5},
      {"index": 1, "pid": 0, "running": false, "restarts": 1, "tasks": [2, 4],
       "droppedFrames": 0}])"));
  EXPECT_EQ(t["status"], "INACTIVE");
  EXPECT_EQ(Get("/api/v1/topology/summary")["topologies"][0]["status"], "INACTIVE");
}

TEST_F(RestApiTest, AComponentsWatermarkIsItsLowestAndItsLagTheHighest) {
  run_.tasks[1].gauges = {{"window rows", 5}, {"watermark ms", 9000}, {"watermark lag ms", 40}};
  run_.tasks[2].gauges = {{"window rows", 7}, {"watermark ms", 7000}, {"watermark lag ms", 2040}};
  EXPECT_EQ(Get("/api/v1/topology/word%20count")["bolts"][0]["gauges"],
            json::parse(R"({"window rows": 12, "watermark ms": 7000, "watermark lag ms": 2040})"));
  const runtime::RunSummary summary =
      runtime::Summarize(spec_, topology::TaskLayout(spec_, 1), run_.tasks);
  const std::vector<std::pair<std::string, uint64_t>> expected = {
      {"window rows", 12}, {"watermark ms", 7000}, {"watermark lag ms", 2040}};
  EXPECT_EQ(summary.Find("count")->gauges, expected);
}

TEST_F(RestApiTest, ExecuteLatencyAndTheComponentsOwnMetrics) {
  using Kind = topology::MetricReading::Kind;
  run_.tasks[1].execute_latency.counts[runtime::LatencyBuckets::Of(2048)] = 1;  // 2.048 µs
  run_.tasks[2].execute_latency.counts[runtime::LatencyBuckets::Of(1024)] = 3;  // 1.024 µs
  run_.tasks[1].user_metrics = {{"seen", Kind::kCounter, 4, {}},
                                {"rows", Kind::kHistogram, 12, {2, 4}}};  // 4 values in [2, 3]
  run_.tasks[2].user_metrics = {{"seen", Kind::kCounter, 6, {}},
                                {"rows", Kind::kHistogram, 1000, {10, 1}}};
  run_.tasks[2].queue_size = 9;
  run_.tasks[2].queue_capacity = 16384;
  const json bolt = Get("/api/v1/topology/word%20count")["bolts"][0];
  EXPECT_EQ(bolt["executeLatency"], "0.001");  // (2048 + 3 x 1024) / 4 ns
  EXPECT_EQ(bolt["executeLatencyP50Ms"], 0.001024);
  EXPECT_EQ(bolt["executeLatencyP99Ms"], 0.001024);  // rank 3 of 4 (as completeLatencyP99Ms)
  EXPECT_EQ(bolt["metrics"], json::parse(R"({"seen": {"type": "counter", "value": 10},
              "rows": {"type": "histogram", "count": 5, "sum": 1012, "p50": 3, "p99": 3}})"));
  const json task = Get("/api/v1/topology/word%20count/component/count")["executorStats"][1];
  EXPECT_EQ(task["queueSize"], 9);
  EXPECT_EQ(task["queueCapacity"], 16384);
  EXPECT_EQ(task["executeLatencyP50Ms"], 0.001024);
}

TEST_F(RestApiTest, DropsByCauseAddUpOverTheTasks) {
  run_.tasks[0].dropped = 1;
  run_.tasks[0].dropped_by_cause = {{"max_retries", 1}};
  run_.tasks[1].dropped = 3;
  run_.tasks[1].dropped_by_cause = {{"late", 3}};
  run_.tasks[2].dropped = 5;
  run_.tasks[2].dropped_by_cause = {{"no_timestamp", 1}, {"late", 4}};
  const json t = Get("/api/v1/topology/word%20count");
  EXPECT_EQ(t["spouts"][0]["givenUp"], 1);
  EXPECT_EQ(t["spouts"][0]["droppedByCause"], json::parse(R"({"max_retries": 1})"));
  EXPECT_EQ(t["bolts"][0]["dropped"], 8);
  EXPECT_EQ(t["bolts"][0]["droppedByCause"], json::parse(R"({"late": 7, "no_timestamp": 1})"));
  const json c = Get("/api/v1/topology/word%20count/component/count");
  EXPECT_EQ(c["executorStats"][1]["droppedByCause"],
            json::parse(R"({"no_timestamp": 1, "late": 4})"));
}

TEST_F(RestApiTest, AComponentWithItsTasks) {
  const json c = Get("/api/v1/topology/word%20count/component/count?window=:all-time");
  EXPECT_EQ(c["componentType"], "bolt");
  EXPECT_EQ(c["executed"], 10);
  ASSERT_EQ(c["executorStats"].size(), 2u);
  EXPECT_EQ(c["executorStats"][1]["id"], "[3-3]");
  EXPECT_EQ(c["executorStats"][1]["executed"], 4);
  EXPECT_EQ(c["executorStats"][1]["errors"], 1);
  EXPECT_EQ(c["componentErrors"], json::parse(R"([{"component": "count", "task": 3,
              "time": 1796083200123, "error": "execute threw: bad row"}])"));
  EXPECT_EQ(c["inputs"][0]["component"], "gen");
}

TEST_F(RestApiTest, UnknownPathsAreNotFound) {
  EXPECT_FALSE(RestAnswer("/api/v1/topology/other", run_));
  EXPECT_FALSE(RestAnswer("/api/v1/topology/word%20count/component/nope", run_));
  EXPECT_FALSE(RestAnswer("/api/v1/topology/word%20count/other", run_));
  EXPECT_FALSE(RestAnswer("/api/v1/cluster/summary", run_));
}

}  // namespace
}  // namespace tempest::launch

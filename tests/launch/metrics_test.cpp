// /metrics: the task metrics in Prometheus' text format, and the HTTP endpoint that serves them.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <thread>

#include "launch/metrics_server.h"
#include "launch/prometheus_text.h"

namespace tempest::launch {
namespace {

namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

topology::TopologySpec Spec() {
  topology::TopologySpec spec;
  spec.name = "wc";
  topology::ComponentSpec gen;
  gen.id = "gen";
  gen.kind = topology::ComponentKind::kSpout;
  topology::ComponentSpec count;
  count.id = "count \"x\"";  // a label value that must be escaped
  count.kind = topology::ComponentKind::kBolt;
  spec.components = {gen, count};
  return spec;
}

// The lines of `text` that start with `prefix`, in order.
std::vector<std::string> Lines(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    if (line.starts_with(prefix)) out.push_back(line);
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

TEST(PrometheusTextTest, CountersGaugesAndTheLatencyHistogramPerTask) {
  runtime::TaskSnapshot gen;
  gen.task = 1;
  gen.component = "gen";
  gen.emitted = 100;
  gen.acked = 97;
  gen.pending = 3;
  gen.complete_latency.counts[runtime::LatencyBuckets::Of(10)] = 2;    // 10 µs
  gen.complete_latency.counts[runtime::LatencyBuckets::Of(100)] = 5;   // 96..103 µs
  gen.complete_latency.counts[runtime::LatencyBuckets::Of(5000)] = 1;  // 4864..5119 µs
  runtime::TaskSnapshot count;
  count.task = 2;
  count.component = "count \"x\"";
  count.executed = 99;
  count.gauges = {{"words held", 42}};
  count.dropped = 5;
  count.dropped_by_cause = {{"late", 4}, {"no_timestamp", 1}};
  gen.dropped = 2;
  gen.dropped_by_cause = {{"max_retries", 2}};
  const std::string text = PrometheusText(Spec(), {gen, count});
  const std::string g = R"(topology="wc",component="gen",task="1")";
  const std::string c = R"(topology="wc",component="count \"x\"",task="2")";
  EXPECT_EQ(Lines(text, "tempest_emitted_total"),
            (std::vector<std::string>{"tempest_emitted_total{" + g + "} 100",
                                      "tempest_emitted_total{" + c + "} 0"}));
  EXPECT_EQ(Lines(text, "tempest_executed_total{" + c),
            (std::vector<std::string>{"tempest_executed_total{" + c + "} 99"}));
  EXPECT_EQ(Lines(text, "tempest_pending{" + g),
            (std::vector<std::string>{"tempest_pending{" + g + "} 3"}));
  EXPECT_EQ(Lines(text, "tempest_task_gauge"),
            (std::vector<std::string>{"tempest_task_gauge{" + c + R"(,name="words held"} 42)"}));
  EXPECT_EQ(Lines(text, "tempest_dropped_total"),
            (std::vector<std::string>{"tempest_dropped_total{" + g + "} 2",
                                      "tempest_dropped_total{" + c + "} 5"}));
  EXPECT_EQ(Lines(text, "tempest_dropped_by_cause_total"),
            (std::vector<std::string>{
                "tempest_dropped_by_cause_total{" + g + R"(,cause="max_retries"} 2)",
                "tempest_dropped_by_cause_total{" + c + R"(,cause="late"} 4)",
                "tempest_dropped_by_cause_total{" + c + R"(,cause="no_timestamp"} 1)"}));
  EXPECT_EQ(Lines(text, "# TYPE tempest_complete_latency_seconds"),
            (std::vector<std::string>{"# TYPE tempest_complete_latency_seconds histogram"}));
  // Cumulative buckets at powers of two (below 16 µs, 32 µs, … as le = 2^k - 1 µs); only the
  // spout has them.
  const std::vector<std::string> buckets = Lines(text, "tempest_complete_latency_seconds_bucket");
  ASSERT_EQ(buckets.size(), 31u);
  EXPECT_EQ(buckets[0], "tempest_complete_latency_seconds_bucket{" + g + R"(,le="1.5e-05"} 2)");
  EXPECT_EQ(buckets[2], "tempest_complete_latency_seconds_bucket{" + g + R"(,le="6.3e-05"} 2)");
  EXPECT_EQ(buckets[3], "tempest_complete_latency_seconds_bucket{" + g + R"(,le="0.000127"} 7)");
  EXPECT_EQ(buckets[8], "tempest_complete_latency_seconds_bucket{" + g + R"(,le="0.004095"} 7)");
  EXPECT_EQ(buckets[9], "tempest_complete_latency_seconds_bucket{" + g + R"(,le="0.008191"} 8)");
  EXPECT_EQ(buckets[30], "tempest_complete_latency_seconds_bucket{" + g + R"(,le="+Inf"} 8)");
  EXPECT_EQ(Lines(text, "tempest_complete_latency_seconds_count"),
            (std::vector<std::string>{"tempest_complete_latency_seconds_count{" + g + "} 8"}));
}

TEST(PrometheusTextTest, QueueFillExecuteLatencyAndTheComponentsOwnMetrics) {
  using Kind = topology::MetricReading::Kind;
  runtime::TaskSnapshot gen;
  gen.task = 1;
  gen.component = "gen";
  runtime::TaskSnapshot count;
  count.task = 2;
  count.component = "count \"x\"";
  count.queue_size = 300;
  count.queue_capacity = 16384;
  count.execute_latency.counts[runtime::LatencyBuckets::Of(500)] = 4;  // 496..511 ns
  count.user_metrics = {{"in flight", Kind::kCounter, -2, {}},
                        {"parsed", Kind::kMeter, 42, {}},
                        {"cache", Kind::kGauge, 7, {}},
                        {"rows", Kind::kHistogram, 1003, {1, 3, 10, 1}}};
  const std::string text = PrometheusText(Spec(), {gen, count});
  const std::string c = R"(topology="wc",component="count \"x\"",task="2")";
  EXPECT_EQ(Lines(text, "tempest_queue_size{" + c),
            (std::vector<std::string>{"tempest_queue_size{" + c + "} 300"}));
  EXPECT_EQ(Lines(text, "tempest_queue_capacity{" + c),
            (std::vector<std::string>{"tempest_queue_capacity{" + c + "} 16384"}));
  // Execute latency in seconds from nanoseconds: only bolts have it.
  EXPECT_TRUE(Lines(text, "tempest_execute_latency_seconds_count{topology=\"wc\",component=\"gen\"")
                  .empty());
  EXPECT_EQ(Lines(text, "tempest_execute_latency_seconds_bucket{" + c + R"(,le="5.11e-07"})"),
            (std::vector<std::string>{"tempest_execute_latency_seconds_bucket{" + c +
                                      R"(,le="5.11e-07"} 4)"}));
  EXPECT_EQ(Lines(text, "tempest_execute_latency_seconds_count{" + c),
            (std::vector<std::string>{"tempest_execute_latency_seconds_count{" + c + "} 4"}));
  EXPECT_EQ(Lines(text, "tempest_user_"),
            (std::vector<std::string>{
                "tempest_user_metric{" + c + R"(,name="in flight",kind="counter"} -2)",
                "tempest_user_metric{" + c + R"(,name="cache",kind="gauge"} 7)",
                "tempest_user_events_total{" + c + R"(,name="parsed"} 42)",
                "tempest_user_distribution_bucket{" + c + R"(,name="rows",le="1"} 3)",
                "tempest_user_distribution_bucket{" + c + R"(,name="rows",le="1023"} 4)",
                "tempest_user_distribution_bucket{" + c + R"(,name="rows",le="+Inf"} 4)",
                "tempest_user_distribution_sum{" + c + R"(,name="rows"} 1003)",
                "tempest_user_distribution_count{" + c + R"(,name="rows"} 4)"}));
  EXPECT_EQ(Lines(text, "# TYPE tempest_user_events_total"),
            (std::vector<std::string>{"# TYPE tempest_user_events_total counter"}));
  // No family without a sample.
  EXPECT_TRUE(Lines(PrometheusText(Spec(), {gen}), "# TYPE tempest_user_").empty());
}

TEST(PrometheusTextTest, WorkerProcessesWhenThereAreSeveral) {
  runtime::TaskSnapshot gen;
  gen.task = 1;
  gen.component = "gen";
  EXPECT_TRUE(Lines(PrometheusText(Spec(), {gen}), "tempest_worker").empty());
  std::vector<runtime::WorkerStatus> workers(2);
  workers[0] = {0, 4242, 2, true, {1}, 5};
  workers[1] = {1, 0, 1, false, {2}, 0};
  const std::string text = PrometheusText(Spec(), {gen}, workers);
  EXPECT_EQ(Lines(text, "tempest_worker_up"),
            (std::vector<std::string>{R"(tempest_worker_up{topology="wc",worker="0"} 1)",
                                      R"(tempest_worker_up{topology="wc",worker="1"} 0)"}));
  EXPECT_EQ(
      Lines(text, "tempest_worker_restarts_total"),
      (std::vector<std::string>{R"(tempest_worker_restarts_total{topology="wc",worker="0"} 2)",
                                R"(tempest_worker_restarts_total{topology="wc",worker="1"} 1)"}));
  EXPECT_EQ(
      Lines(text, "tempest_dropped_frames_total{topology=\"wc\",worker=\"0\"}"),
      (std::vector<std::string>{R"(tempest_dropped_frames_total{topology="wc",worker="0"} 5)"}));
}

// A GET (or other method) against the server, answered on a thread of its own.
http::response<http::string_body> Request(uint16_t port, http::verb verb, const std::string& target,
                                          const std::string& token = {}) {
  boost::asio::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  http::request<http::string_body> req(verb, target, 11);
  req.set(http::field::host, "127.0.0.1");
  if (!token.empty()) req.set("X-Tempest-Token", token);
  http::write(socket, req);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(socket, buffer, res);
  return res;
}

TEST(MetricsServerTest, AnswersWhatTheHandlerKnowsAnd404Otherwise) {
  boost::asio::io_context io;
  int calls = 0;
  MetricsServer server(io, "127.0.0.1", 0, [&](const HttpRequest& r) -> std::optional<HttpAnswer> {
    if (r.post) return HttpAnswer{"text/plain", "post " + std::string(r.token) + "\n", 403};
    if (r.target != "/metrics") return std::nullopt;
    return HttpAnswer{"text/plain", "m " + std::to_string(++calls) + "\n"};
  });
  ASSERT_NE(server.port(), 0);
  std::thread loop([&] { io.run(); });
  const auto ok = Request(server.port(), http::verb::get, "/metrics");
  EXPECT_EQ(ok.result(), http::status::ok);
  EXPECT_EQ(ok[http::field::content_type], "text/plain");
  EXPECT_EQ(ok.body(), "m 1\n");
  EXPECT_EQ(Request(server.port(), http::verb::get, "/metrics").body(), "m 2\n");
  EXPECT_EQ(Request(server.port(), http::verb::get, "/other").result(), http::status::not_found);
  const auto post = Request(server.port(), http::verb::post, "/metrics", "t0k");
  EXPECT_EQ(post.result(), http::status::forbidden);
  EXPECT_EQ(post.body(), "post t0k\n");
  EXPECT_EQ(Request(server.port(), http::verb::put, "/metrics").result(),
            http::status::method_not_allowed);
  boost::asio::post(io, [&] { server.Close(); });
  loop.join();  // nothing left to do once the acceptor is closed
  EXPECT_EQ(calls, 2);
}

TEST(MetricsServerTest, ATakenPortOrABadAddressIsAClearError) {
  boost::asio::io_context io;
  const auto none = [](const HttpRequest&) { return std::optional<HttpAnswer>(); };
  MetricsServer first(io, "127.0.0.1", 0, none);
  try {
    MetricsServer second(io, "127.0.0.1", first.port(), none);
    FAIL() << "a second server on the same port";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "metrics: cannot listen on 127.0.0.1:" + std::to_string(first.port()) + ": ", 0),
              0u)
        << e.what();
  }
  EXPECT_THROW(MetricsServer(io, "localhost:80", 0, none), std::runtime_error);
}

}  // namespace
}  // namespace tempest::launch

// The HTTP endpoint's routes: the web UI page, /metrics, /api/v1/, and the actions that need the
// run's token.
#include "launch/http_routes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tempest::launch {
namespace {

using nlohmann::json;

class HttpRoutesTest : public ::testing::Test {
 protected:
  HttpRoutesTest() {
    spec_.name = "word count";
    topology::ComponentSpec gen;
    gen.id = "gen";
    gen.kind = topology::ComponentKind::kSpout;
    spec_.components = {gen};
    ServedRun run;
    run.spec = &spec_;
    run.start = std::chrono::steady_clock::now();
    run.tasks = [] {
      runtime::TaskSnapshot t;
      t.task = 1;
      t.component = "gen";
      t.emitted = 42;
      return std::vector<runtime::TaskSnapshot>{t};
    };
    run.worker_status = [] { return std::vector<runtime::WorkerStatus>{}; };
    run.set_active = [this](bool active) { calls_.push_back(active ? "activate" : "deactivate"); };
    run.kill = [this] { calls_.push_back("kill"); };
    routes_.emplace(std::move(run), "5ecret");
  }

  std::optional<HttpAnswer> Get(std::string_view target) { return (*routes_)({false, target, {}}); }
  std::optional<HttpAnswer> Post(std::string_view target, std::string_view token) {
    return (*routes_)({true, target, token});
  }
  std::string Status() {
    return json::parse(Get("/api/v1/topology/summary")->body)["topologies"][0]["status"];
  }

  topology::TopologySpec spec_;
  std::vector<std::string> calls_;
  std::optional<HttpRoutes> routes_;
};

TEST_F(HttpRoutesTest, ThePageTheMetricsAndTheJson) {
  const std::optional<HttpAnswer> page = Get("/?token=5ecret");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->content_type, "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("<svg id=\"graph\""), std::string::npos);
  // Nothing is fetched from outside the machine: the one absolute URL is SVG's namespace name.
  std::string body = page->body;
  for (std::size_t at; (at = body.find("http://www.w3.org/2000/svg")) != std::string::npos;) {
    body.erase(at, 26);
  }
  for (const char* outside : {"http://", "https://", "//cdn", "@import"}) {
    EXPECT_EQ(body.find(outside), std::string::npos) << outside;
  }
  const std::optional<HttpAnswer> metrics = Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find(
                "tempest_emitted_total{topology=\"word count\",component=\"gen\",task=\"1\"} 42\n"),
            std::string::npos);
  EXPECT_EQ(json::parse(Get("/api/v1/topology/word%20count")->body)["spouts"][0]["emitted"], 42);
  EXPECT_FALSE(Get("/nothing"));
}

TEST_F(HttpRoutesTest, ActionsNeedTheToken) {
  for (std::string_view token : {"", "5ecreT", "5ecret-", "5ecre"}) {
    const std::optional<HttpAnswer> refused =
        Post("/api/v1/topology/word%20count/deactivate", token);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 403) << token;
    EXPECT_NE(refused->body.find("X-Tempest-Token"), std::string::npos);
  }
  EXPECT_TRUE(calls_.empty());
  EXPECT_EQ(Status(), "ACTIVE");
}

TEST_F(HttpRoutesTest, DeactivateActivateAndKill) {
  const std::optional<HttpAnswer> done = Post("/api/v1/topology/word%20count/deactivate", "5ecret");
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status, 200);
  EXPECT_EQ(json::parse(done->body), json::parse(R"({"topologyOperation": "deactivate",
              "topologyId": "word count", "status": "success"})"));
  EXPECT_EQ(Status(), "INACTIVE");
  EXPECT_EQ(Post("/api/v1/topology/word count/activate", "5ecret")->status, 200);
  EXPECT_EQ(Status(), "ACTIVE");
  EXPECT_EQ(Post("/api/v1/topology/word%20count/kill", "5ecret")->status, 200);
  EXPECT_EQ(Status(), "KILLED");
  EXPECT_EQ(Post("/api/v1/topology/word%20count/kill", "5ecret")->status, 409);
  EXPECT_EQ(Post("/api/v1/topology/word%20count/activate", "5ecret")->status, 409);
  EXPECT_EQ(calls_, (std::vector<std::string>{"deactivate", "activate", "kill"}));
}

TEST_F(HttpRoutesTest, UnknownActionsOrTopologiesAreNotFound) {
  EXPECT_FALSE(Post("/api/v1/topology/other/kill", "5ecret"));
  EXPECT_FALSE(Post("/api/v1/topology/word%20count/rebalance", "5ecret"));
  EXPECT_FALSE(Post("/metrics", "5ecret"));
  EXPECT_TRUE(calls_.empty());
}

TEST(HttpTokenTest, TokensAreRandomAndKeptPrivately) {
  const std::string a = MakeToken(), b = MakeToken();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a, b);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("tempest-token-" + a);
  std::filesystem::create_directory(dir);
  const std::string path = WriteToken(dir.string(), a);
  EXPECT_EQ(std::filesystem::status(path).permissions(),
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, a);
  std::filesystem::remove_all(dir);
  try {
    WriteToken((dir / "missing").string(), a);
    FAIL() << "wrote into a missing folder";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "cannot write " + (dir / "missing").string() + "/ui-token: ", 0),
              0u)
        << e.what();
  }
}

}  // namespace
}  // namespace tempest::launch

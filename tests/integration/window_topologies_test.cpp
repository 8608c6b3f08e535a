// Windowed bolts end to end: processing-time windows of every kind from YAML (their times are
// the clock's, so each window is checked against the rules rather than a fixed file; the
// event-time kinds have exact expected files in tests/data/cases/windows_event_time), and an
// event-time window whose second input stays silent: with idle_timeout_ms the windows still fire
// while that input is alive (Storm would hold every window until it spoke).
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "../support/data_dir.h"
#include "../support/temp_dir.h"
#include "../support/tempest_workers.h"
#include "../support/test_components.h"
#include "bolts/windowing/window_inspect_bolt.h"
#include "runtime/local_cluster.h"
#include "topology/json.h"
#include "topology/topology_builder.h"

namespace tempest {
namespace {

using topology::Value;

struct Window {
  std::optional<int64_t> start;
  int64_t end = 0;
  std::vector<int64_t> events, news, expired;
};

std::vector<int64_t> Ints(const Value& list) {
  std::vector<int64_t> out;
  for (const Value& v : list.AsList()) out.push_back(v.AsInt());
  return out;
}

// The lines of a WindowInspectBolt's FileSink output, in file order (one task wrote them).
std::vector<Window> ReadWindows(const std::string& path) {
  std::vector<Window> out;
  std::istringstream in(testing::ReadFile(path));
  for (std::string line; std::getline(in, line);) {
    const Value row = topology::ParseJson(line);
    Window w;
    for (const auto& [k, v] : row.AsMap()) {
      const std::string& key = k.AsString();
      if (key == "start_ms" && !v.IsNull()) w.start = v.AsInt();
      if (key == "end_ms") w.end = v.AsInt();
      if (key == "events") w.events = Ints(v);
      if (key == "new") w.news = Ints(v);
      if (key == "expired") w.expired = Ints(v);
    }
    out.push_back(std::move(w));
  }
  return out;
}

std::vector<int64_t> Range(int64_t from, int64_t to) {  // [from, to)
  std::vector<int64_t> out;
  for (int64_t i = from; i < to; ++i) out.push_back(i);
  return out;
}

class ProcessingTimeWindowsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    out_ = new testing::TempDir();
    const testing::YamlRun yaml{(testing::DataDir() / "windows" / "processing.yaml").string(),
                                {{"out_dir", out_->path()}}};
    const runtime::RunSummary summary = runtime::LocalCluster(yaml.Load()).Run();
    ASSERT_TRUE(summary.completed) << summary.error;
    const runtime::ComponentSummary* gen = summary.Find("gen");
    ASSERT_NE(gen, nullptr);
    EXPECT_EQ(gen->acked, 2000u);  // every tuple left every window and was acked
    EXPECT_EQ(gen->failed, 0u);
  }
  static void TearDownTestSuite() { delete out_; }
  static std::vector<Window> Windows(const char* name) { return ReadWindows(out_->File(name)); }
  static testing::TempDir* out_;
};
testing::TempDir* ProcessingTimeWindowsTest::out_ = nullptr;

TEST_F(ProcessingTimeWindowsTest, CountTumblingHoldsEachHundredOnce) {
  const std::vector<Window> w = Windows("count_tumbling.jsonl");
  ASSERT_EQ(w.size(), 20u);
  for (std::size_t k = 0; k < w.size(); ++k) {
    const auto i = static_cast<int64_t>(k);
    EXPECT_EQ(w[k].start, std::nullopt);
    EXPECT_EQ(w[k].events, Range(100 * i, 100 * i + 100)) << "window " << k;
    EXPECT_EQ(w[k].news, w[k].events);
    EXPECT_EQ(w[k].expired, k == 0 ? std::vector<int64_t>{} : w[k - 1].events);
  }
}

TEST_F(ProcessingTimeWindowsTest, CountSlidingKeepsTheLastFiftyEveryTwenty) {
  const std::vector<Window> w = Windows("count_sliding.jsonl");
  ASSERT_EQ(w.size(), 100u);
  for (std::size_t k = 1; k <= w.size(); ++k) {
    const auto i = static_cast<int64_t>(k);
    const Window& x = w[k - 1];
    EXPECT_EQ(x.events, Range(std::max<int64_t>(0, 20 * i - 50), 20 * i)) << "window " << k;
    EXPECT_EQ(x.news, Range(20 * i - 20, 20 * i));
    EXPECT_EQ(x.expired,
              Range(std::max<int64_t>(0, 20 * i - 70), std::max<int64_t>(0, 20 * i - 50)));
  }
}

TEST_F(ProcessingTimeWindowsTest, TimeTumblingHoldsEveryTupleExactlyOnceOnItsGrid) {
  const std::vector<Window> w = Windows("time_tumbling.jsonl");
  ASSERT_FALSE(w.empty());
  std::vector<int64_t> all;
  for (std::size_t k = 0; k < w.size(); ++k) {
    ASSERT_TRUE(w[k].start.has_value());
    EXPECT_EQ(*w[k].start, w[k].end - 20);
    EXPECT_EQ(w[k].news, w[k].events);
    all.insert(all.end(), w[k].events.begin(), w[k].events.end());
    if (k > 0 && k + 1 < w.size()) {
      EXPECT_EQ((w[k].end - w[0].end) % 20, 0) << "window " << k << " is off the 20 ms grid";
      if (w[k].end - w[k - 1].end == 20) {
        EXPECT_EQ(w[k].expired, w[k - 1].events);
      }
    }
  }
  EXPECT_EQ(all, Range(0, 2000));  // in order, none twice, none lost between windows
}

TEST_F(ProcessingTimeWindowsTest, TimeSlidingHoldsEveryTupleOnceOrTwiceOnItsGrid) {
  const std::vector<Window> w = Windows("time_sliding.jsonl");
  ASSERT_GE(w.size(), 2u);
  // The scheduled windows (every 20 ms, 40 long) hold each tuple once or twice; the last one,
  // fired at the end of the input, holds what arrived in its last 40 ms, some of which an
  // earlier window held too.
  std::vector<int> seen(2000, 0);
  std::vector<int64_t> news;
  for (std::size_t k = 0; k < w.size(); ++k) {
    ASSERT_TRUE(w[k].start.has_value());
    EXPECT_EQ(*w[k].start, w[k].end - 40);
    news.insert(news.end(), w[k].news.begin(), w[k].news.end());
    if (k + 1 == w.size()) break;
    EXPECT_EQ((w[k].end - w[0].end) % 20, 0) << "window " << k << " is off the 20 ms grid";
    for (int64_t id : w[k].events) ++seen[static_cast<std::size_t>(id)];
  }
  const std::vector<int64_t>& last = w.back().events;
  ASSERT_FALSE(last.empty());
  EXPECT_EQ(last, Range(last.front(), 2000));  // the newest tuples, in order
  for (int64_t id : last) ++seen[static_cast<std::size_t>(id)];
  for (std::size_t id = 0; id < seen.size(); ++id) {
    EXPECT_GE(seen[id], 1) << "id " << id << " in no window";
    EXPECT_LE(seen[id], 3) << "id " << id;
  }
  EXPECT_EQ(news, Range(0, 2000));  // each tuple is new exactly once
}

// Emits nothing until the test opens it, then is exhausted: an input that is alive and silent.
class GateSpout final : public topology::Spout {
 public:
  explicit GateSpout(std::shared_ptr<std::atomic<bool>> open) : open_(std::move(open)) {}
  void Open(const topology::TopologyContext&, topology::SpoutOutputCollector&) override {}
  topology::NextResult NextTuple() override {
    return open_->load() ? topology::NextResult::kExhausted : topology::NextResult::kIdle;
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override {
    d.Declare({"id", "ts"});
  }

 private:
  std::shared_ptr<std::atomic<bool>> open_;
};

TEST(IdleInputTest, EventTimeWindowsFireWhileTheOtherInputIsSilent) {
  auto open = std::make_shared<std::atomic<bool>>(false);
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::vector<int64_t>> windows;

  topology::TopologyBuilder b("idle-input");
  std::vector<topology::Values> rows;
  for (int64_t id = 0; id < 6; ++id) rows.push_back({id, 100 + 10 * id});  // ts 100..150
  b.SetSpout("events", [rows] {
    return std::make_unique<testing::ListSpout>(topology::Fields{"id", "ts"}, rows);
  });
  b.SetSpout("silent", [open] { return std::make_unique<GateSpout>(open); });
  bolts::WindowInspectConfig inspect;
  inspect.window = bolts::WindowConfig::Tumbling(bolts::WindowSpan::DurationMs(10));
  inspect.window.timestamp_field = "ts";
  inspect.window.watermark_interval_ms = 20;
  inspect.window.idle_timeout_ms = 200;
  inspect.field = "id";
  b.SetBolt("window",
            [inspect] {
              return bolts::AdaptWindowedBolt(std::make_unique<bolts::WindowInspectBolt>(inspect),
                                              inspect.window);
            })
      .GlobalGrouping("events")
      .GlobalGrouping("silent");
  b.SetBolt("sink", [&] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, topology::Fields>{},
         [&](const topology::Tuple& t, topology::OutputCollector& out,
             const topology::TopologyContext&) {
           {
             std::lock_guard lock(mu);
             windows.push_back(Ints(t.GetValueByField("events")));
           }
           cv.notify_all();
           out.Ack(t);
         });
   }).ShuffleGrouping("window");

  runtime::LocalCluster cluster(b.Build());
  cluster.Start();
  // Once the silent input is idle (200 ms), the watermark is 150 and every window, (90, 100]
  // to (140, 150], fires; without idle_timeout_ms none would before the input ends.
  bool fired;
  {
    std::unique_lock lock(mu);
    fired = cv.wait_for(lock, std::chrono::seconds(30), [&] { return windows.size() >= 6; });
  }
  const bool silent_still_open = !open->load();
  open->store(true);  // let the run end either way
  const runtime::RunSummary summary = cluster.Wait();
  ASSERT_TRUE(summary.completed) << summary.error;
  EXPECT_TRUE(fired) << "no windows while an input was silent";
  EXPECT_TRUE(silent_still_open);
  std::lock_guard lock(mu);
  EXPECT_EQ(windows, (std::vector<std::vector<int64_t>>{{0}, {1}, {2}, {3}, {4}, {5}}));
}

}  // namespace
}  // namespace tempest

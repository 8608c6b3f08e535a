// Guaranteed processing in one process (issue 5): tuple trees complete through anchored chains
// and multi-anchored emits, failures and timeouts go back to the spout and are replayed, max
// spout pending bounds what is in flight, reset_timeout keeps slow work alive, replays after a
// flush still arrive, and the ack-at-emit and untracked modes. Exact counts throughout; waiting
// is always on the run's own end.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "../support/generator.h"
#include "../support/test_components.h"
#include "bolts/identity_bolt.h"
#include "bolts/null_bolt.h"
#include "runtime/local_cluster.h"
#include "topology/topology_builder.h"

namespace tempest::runtime {
namespace {

using topology::Fields;
using topology::OutputCollector;
using topology::TopologyContext;
using topology::Tuple;
using topology::Value;
using topology::Values;

const Fields kGenFields{"id", "key", "ts", "payload"};

std::set<int64_t> Ids(const testing::Recorder& r) {
  std::set<int64_t> ids;
  for (const auto& rec : r.records()) ids.insert(rec.values[0].AsInt());
  return ids;
}

std::set<int64_t> Range(int64_t n) {
  std::set<int64_t> s;
  for (int64_t i = 0; i < n; ++i) s.insert(i);
  return s;
}

// Acks (and forwards, anchored) every input the `first_time` predicate lets through on its
// first sight; otherwise fails it, or ignores it (neither ack nor fail) with `ignore`.
class PickyBolt : public topology::Bolt {
 public:
  PickyBolt(std::function<bool(int64_t)> refuse_first, bool ignore)
      : refuse_first_(std::move(refuse_first)), ignore_(ignore) {}
  void Prepare(const TopologyContext&, OutputCollector& out) override { out_ = &out; }
  void Execute(const Tuple& t) override {
    const int64_t id = t.GetInt(0);
    if (refuse_first_(id) && seen_.insert(id).second) {
      if (!ignore_) out_->Fail(t);
      return;
    }
    out_->Emit(t, t.GetValues());
    out_->Ack(t);
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override {
    d.Declare(kGenFields);
  }

 private:
  std::function<bool(int64_t)> refuse_first_;
  bool ignore_;
  OutputCollector* out_ = nullptr;
  std::set<int64_t> seen_;
};

topology::BoltFactory Picky(std::function<bool(int64_t)> refuse_first, bool ignore = false) {
  return [refuse_first, ignore] { return std::make_unique<PickyBolt>(refuse_first, ignore); };
}

topology::BoltFactory Identity() {
  return [] { return std::make_unique<bolts::IdentityBolt>(kGenFields); };
}

topology::BoltFactory Sink(std::shared_ptr<testing::Recorder> r) {
  return [r] { return std::make_unique<testing::RecordingBolt>(r); };
}

// Runs each test twice: with the spouts tracking their own trees (the default: bolts ack straight
// to them) and with every tree going through the acker tasks (Storm's way, which spout tasks
// beyond the root ids' lanes take).
class TrackedBy : public ::testing::TestWithParam<bool> {
 protected:
  RunSummary Run(std::shared_ptr<const topology::TopologySpec> spec) {
    LocalRunOptions options;
    options.spouts_track_trees = GetParam();
    return LocalCluster(std::move(spec), options).Run();
  }
};
INSTANTIATE_TEST_SUITE_P(AckingTest, TrackedBy, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "Spouts" : "Ackers";
                         });

// Which tasks apply the acks: the acker tasks count the trees they decide.
TEST_P(TrackedBy, TheAckersDecideTreesOnlyWhenSpoutsDoNotTrackThem) {
  constexpr int kCount = 2000;
  topology::TopologyBuilder b;
  b.Config().acker_executors = 2;
  b.SetSpout("gen", testing::Generator(kCount), 2);
  b.SetBolt("a", Identity(), 2).ShuffleGrouping("gen");
  b.SetBolt("sink", Sink(std::make_shared<testing::Recorder>())).ShuffleGrouping("a");
  LocalRunOptions options;
  options.spouts_track_trees = GetParam();
  LocalCluster cluster(b.Build(), options);
  const RunSummary s = cluster.Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(s.Find("gen")->acked, static_cast<uint64_t>(kCount));
  uint64_t by_ackers = 0;
  for (const TaskSnapshot& t : cluster.Snapshot()) {
    if (t.component == topology::kAckerComponent) by_ackers += t.acked;
  }
  EXPECT_EQ(by_ackers, GetParam() ? 0u : static_cast<uint64_t>(kCount));
}

TEST_P(TrackedBy, TreesCompleteThroughAnchoredChainsWithOneOrSeveralAckers) {
  for (const int ackers : {1, 3}) {
    constexpr int kCount = 5000;
    auto recorder = std::make_shared<testing::Recorder>();
    topology::TopologyBuilder b;
    b.Config().acker_executors = ackers;
    b.SetSpout("gen", testing::Generator(kCount), 2);
    b.SetBolt("a", Identity(), 2).ShuffleGrouping("gen");
    b.SetBolt("b", Identity(), 3).ShuffleGrouping("a");
    b.SetBolt("sink", Sink(recorder), 2).ShuffleGrouping("b");
    const RunSummary s = Run(b.Build());
    ASSERT_TRUE(s.completed) << s.error;
    const ComponentSummary& gen = *s.Find("gen");
    EXPECT_EQ(gen.acked, static_cast<uint64_t>(kCount)) << ackers << " ackers";
    EXPECT_EQ(gen.failed, 0u);
    EXPECT_EQ(gen.pending, 0u);
    EXPECT_EQ(gen.replayed, 0u);
    EXPECT_EQ(gen.complete_latency.Total(), static_cast<uint64_t>(kCount));
    EXPECT_EQ(s.Find("sink")->acked, static_cast<uint64_t>(kCount));
    EXPECT_EQ(Ids(*recorder), Range(kCount));
  }
}

// Pairs consecutive inputs into one tuple anchored to both (as a join does), acks both. After the
// flush (end-of-stream) a replayed input is forwarded alone at once: holding it would stall it.
class PairBolt : public topology::Bolt {
 public:
  void Prepare(const TopologyContext&, OutputCollector& out) override { out_ = &out; }
  void Execute(const Tuple& t) override {
    if (!held_ && !flushed_) {
      held_ = t;  // a copy keeps the ack metadata; ack the copy that was anchored to
      return;
    }
    if (!held_) {
      out_->Emit("default", {&t}, {t.GetValue(0), Value()});
      out_->Ack(t);
      return;
    }
    out_->Emit("default", {&*held_, &t}, {held_->GetValue(0), t.GetValue(0)});
    out_->Ack(*held_);
    out_->Ack(t);
    held_.reset();
  }
  void OnEndOfStream() override {
    flushed_ = true;
    if (!held_) return;
    out_->Emit(*held_, {held_->GetValue(0), Value()});
    out_->Ack(*held_);
    held_.reset();
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override {
    d.Declare({"first", "second"});
  }

 private:
  OutputCollector* out_ = nullptr;
  std::optional<Tuple> held_;
  bool flushed_ = false;
};

// Fails the first pair that contains id 0; acks everything else.
class FailFirstPairWithZero : public topology::Bolt {
 public:
  explicit FailFirstPairWithZero(std::shared_ptr<testing::Recorder> r) : r_(std::move(r)) {}
  void Prepare(const TopologyContext&, OutputCollector& out) override { out_ = &out; }
  void Execute(const Tuple& t) override {
    if (!failed_ && (t.GetValue(0) == Value(int64_t{0}) || t.GetValue(1) == Value(int64_t{0}))) {
      failed_ = true;
      out_->Fail(t);
      return;
    }
    r_->Add(0, t);
    out_->Ack(t);
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  std::shared_ptr<testing::Recorder> r_;
  OutputCollector* out_ = nullptr;
  bool failed_ = false;
};

TEST_P(TrackedBy, AMultiAnchoredTupleCompletesOrFailsEveryTreeItBelongsTo) {
  constexpr int kCount = 1000;
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(kCount));
  b.SetBolt("pair", [] { return std::make_unique<PairBolt>(); }).ShuffleGrouping("gen");
  b.SetBolt("sink", [recorder] {
     return std::make_unique<FailFirstPairWithZero>(recorder);
   }).ShuffleGrouping("pair");
  const RunSummary s = Run(b.Build());
  ASSERT_TRUE(s.completed) << s.error;
  const ComponentSummary& gen = *s.Find("gen");
  // The failed pair held two trees: both fail, both are replayed, then everything completes.
  EXPECT_EQ(gen.failed, 2u);
  EXPECT_EQ(gen.replayed, 2u);
  EXPECT_EQ(gen.timed_out, 0u);
  EXPECT_EQ(gen.acked, static_cast<uint64_t>(kCount));
  EXPECT_EQ(gen.pending, 0u);
  std::set<int64_t> ids;
  for (const auto& r : recorder->records()) {
    for (const Value& v : r.values) {
      if (!v.IsNull()) ids.insert(v.AsInt());
    }
  }
  EXPECT_EQ(ids, Range(kCount));
}

TEST_P(TrackedBy, FailedTuplesAreReplayedUntilTheyAreProcessed) {
  constexpr int kCount = 3000;
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(kCount));
  b.SetBolt("picky", Picky([](int64_t id) { return id % 7 == 0; })).ShuffleGrouping("gen");
  b.SetBolt("sink", Sink(recorder)).ShuffleGrouping("picky");
  const RunSummary s = Run(b.Build());
  ASSERT_TRUE(s.completed) << s.error;
  const uint64_t refused = (kCount + 6) / 7;
  const ComponentSummary& gen = *s.Find("gen");
  EXPECT_EQ(gen.failed, refused);
  EXPECT_EQ(gen.replayed, refused);
  EXPECT_EQ(gen.emitted, kCount + refused);
  EXPECT_EQ(gen.acked, static_cast<uint64_t>(kCount));
  EXPECT_EQ(recorder->records().size(), static_cast<std::size_t>(kCount));  // none twice
  EXPECT_EQ(Ids(*recorder), Range(kCount));
}

// Emits ids 0..count-1 with string message ids ("m<id>"), replays what fails, and records
// the ids it is handed back: acked, and failed.
class StringIdSpout : public topology::Spout {
 public:
  struct Seen {
    std::mutex mu;
    std::multiset<std::string> acked, failed;
  };
  StringIdSpout(int64_t count, std::shared_ptr<Seen> seen)
      : count_(count), seen_(std::move(seen)) {}
  void Open(const TopologyContext&, topology::SpoutOutputCollector& out) override { out_ = &out; }
  topology::NextResult NextTuple() override {
    int64_t id = next_;
    if (!replay_.empty()) {
      id = replay_.back();
      replay_.pop_back();
    } else if (next_ == count_) {
      return topology::NextResult::kExhausted;
    } else {
      ++next_;
    }
    out_->Emit(Values{id, int64_t{0}, int64_t{0}, std::string("p")},
               Value("m" + std::to_string(id)));
    return topology::NextResult::kEmitted;
  }
  void Ack(const Value& id) override {
    const std::lock_guard lock(seen_->mu);
    seen_->acked.insert(id.AsString());
  }
  void Fail(const Value& id) override {
    {
      const std::lock_guard lock(seen_->mu);
      seen_->failed.insert(id.AsString());
    }
    replay_.push_back(std::stoll(id.AsString().substr(1)));
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override {
    d.Declare(kGenFields);
  }

 private:
  int64_t count_;
  int64_t next_ = 0;
  std::vector<int64_t> replay_;
  std::shared_ptr<Seen> seen_;
  topology::SpoutOutputCollector* out_ = nullptr;
};

TEST_P(TrackedBy, StringMessageIdsComeBackToTheSpoutOnAckAndFail) {
  constexpr int64_t kCount = 2000;
  auto seen = std::make_shared<StringIdSpout::Seen>();
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.SetSpout("gen", [seen] { return std::make_unique<StringIdSpout>(int64_t{kCount}, seen); });
  b.SetBolt("picky", Picky([](int64_t id) { return id % 7 == 0; })).ShuffleGrouping("gen");
  b.SetBolt("sink", Sink(recorder)).ShuffleGrouping("picky");
  const RunSummary s = Run(b.Build());
  ASSERT_TRUE(s.completed) << s.error;
  std::multiset<std::string> all, refused;
  for (int64_t i = 0; i < kCount; ++i) {
    all.insert("m" + std::to_string(i));
    if (i % 7 == 0) refused.insert("m" + std::to_string(i));
  }
  EXPECT_EQ(seen->acked, all);  // each id once, as the spout gave it
  EXPECT_EQ(seen->failed, refused);
  EXPECT_EQ(Ids(*recorder), Range(kCount));
  EXPECT_EQ(recorder->records().size(), static_cast<std::size_t>(kCount));
}

TEST_P(TrackedBy, TuplesNobodyAcksTimeOutAndAreReplayed) {
  constexpr int kCount = 300;
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.Config().message_timeout_secs = 1;  // they time out after 1 to 2 s
  b.SetSpout("gen", testing::Generator(kCount));
  b.SetBolt("forgetful", Picky([](int64_t) { return true; }, /*ignore=*/true), 2)
      .FieldsGrouping("gen", {"id"});
  b.SetBolt("sink", Sink(recorder)).ShuffleGrouping("forgetful");
  const RunSummary s = Run(b.Build());
  ASSERT_TRUE(s.completed) << s.error;
  const ComponentSummary& gen = *s.Find("gen");
  EXPECT_EQ(gen.timed_out, static_cast<uint64_t>(kCount));
  EXPECT_EQ(gen.failed, static_cast<uint64_t>(kCount));  // a timeout is a failure
  EXPECT_EQ(gen.replayed, static_cast<uint64_t>(kCount));
  EXPECT_EQ(gen.acked, static_cast<uint64_t>(kCount));
  EXPECT_EQ(Ids(*recorder), Range(kCount));
  // Each completed after at least one whole timeout: its latency counts from the replay's emit.
  EXPECT_EQ(gen.complete_latency.Total(), static_cast<uint64_t>(kCount));
}

// Emits ids 0..count-1 with message ids, records the most trees it ever had outstanding and the
// threads its methods ran on.
class CountingSpout : public topology::Spout {
 public:
  struct Seen {
    std::mutex mu;
    std::size_t max_outstanding = 0;
    std::set<std::thread::id> threads;
    uint64_t acked = 0;
  };
  CountingSpout(int64_t count, std::shared_ptr<Seen> seen) : count_(count), seen_(seen) {}
  void Open(const TopologyContext&, topology::SpoutOutputCollector& out) override {
    out_ = &out;
    Note();
  }
  topology::NextResult NextTuple() override {
    Note();
    if (next_ >= count_) return topology::NextResult::kExhausted;
    out_->Emit(Values{next_}, Value(next_));
    ++next_;
    ++outstanding_;
    std::lock_guard lock(seen_->mu);
    seen_->max_outstanding = std::max(seen_->max_outstanding, outstanding_);
    return topology::NextResult::kEmitted;
  }
  void Ack(const Value&) override {
    Note();
    --outstanding_;
    std::lock_guard lock(seen_->mu);
    ++seen_->acked;
  }
  void Fail(const Value&) override {
    Note();
    --outstanding_;
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override { d.Declare({"id"}); }

 private:
  void Note() {
    std::lock_guard lock(seen_->mu);
    seen_->threads.insert(std::this_thread::get_id());
  }
  int64_t count_;
  std::shared_ptr<Seen> seen_;
  topology::SpoutOutputCollector* out_ = nullptr;
  int64_t next_ = 0;
  std::size_t outstanding_ = 0;
};

class AckingBolt : public topology::Bolt {
 public:
  void Prepare(const TopologyContext&, OutputCollector& out) override { out_ = &out; }
  void Execute(const Tuple& t) override { out_->Ack(t); }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  OutputCollector* out_ = nullptr;
};

TEST(AckingTest, MaxSpoutPendingBoundsTheTreesInFlightAndAckRunsOnTheSpoutsThread) {
  static constexpr int kCount = 4000;
  auto seen = std::make_shared<CountingSpout::Seen>();
  topology::TopologyBuilder b;
  b.Config().max_spout_pending = 7;
  b.SetSpout("counting", [seen] { return std::make_unique<CountingSpout>(kCount, seen); });
  b.SetBolt(
       "ack", [] { return std::make_unique<AckingBolt>(); }, 2)
      .ShuffleGrouping("counting");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(seen->acked, static_cast<uint64_t>(kCount));
  EXPECT_LE(seen->max_outstanding, 7u);
  EXPECT_GE(seen->max_outstanding, 1u);
  EXPECT_EQ(seen->threads.size(), 1u);  // Open, NextTuple, Ack: all on the spout's thread
  EXPECT_EQ(s.Find("counting")->acked, static_cast<uint64_t>(kCount));
}

// Holds every input for `hold`, restarting its timeout on every tick when `reset`, then acks.
class SlowBolt : public topology::Bolt {
 public:
  SlowBolt(std::chrono::milliseconds hold, bool reset) : hold_(hold), reset_(reset) {}
  void Prepare(const TopologyContext&, OutputCollector& out) override { out_ = &out; }
  void Execute(const Tuple& t) override {
    held_.push_back(t);
    if (!since_) since_ = std::chrono::steady_clock::now();
  }
  std::chrono::milliseconds TickInterval() const override { return std::chrono::milliseconds(100); }
  void OnTick() override {
    if (!since_) return;
    if (std::chrono::steady_clock::now() - *since_ < hold_) {
      if (reset_) {
        for (const Tuple& t : held_) out_->ResetTimeout(t);
      }
      return;
    }
    for (const Tuple& t : held_) out_->Ack(t);
    held_.clear();
    since_.reset();
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  std::chrono::milliseconds hold_;
  bool reset_;
  OutputCollector* out_ = nullptr;
  std::vector<Tuple> held_;
  std::optional<std::chrono::steady_clock::time_point> since_;
};

// 5,000 tuples through a bolt that takes a millisecond each, with a 1 s timeout and no pending
// cap: most trees wait longer than the timeout in the bolt's queue, and their replays queued
// behind tuples whose trees had already failed, for ever. A bolt now fails what waited in its
// queue longer than the timeout without executing it, so the run ends, every tuple processed.
TEST(AckingTest, AnOverloadedBoundedRunEndsInsteadOfReplayingForEver) {
  constexpr int kCount = 5000;
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.Config().message_timeout_secs = 1;
  b.Config().spout_retry_max_delay_ms = 100;  // replays come back soon
  b.SetSpout("gen", testing::Generator(kCount));
  b.SetBolt("slow", [] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, Fields>{{"default", kGenFields}},
         [](const Tuple& t, OutputCollector& out, const TopologyContext&) {
           std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the work, not a wait
           out.Emit(t, t.GetValues());
           out.Ack(t);
         });
   }).ShuffleGrouping("gen");
  b.SetBolt("sink", Sink(recorder)).ShuffleGrouping("slow");
  LocalCluster cluster(b.Build());
  cluster.Start();
  auto summary = std::async(std::launch::async, [&] { return cluster.Wait(); });
  if (summary.wait_for(std::chrono::seconds(120)) != std::future_status::ready) {
    cluster.Stop();
    summary.wait();
    FAIL() << "the run was still replaying after 120 s";
  }
  const RunSummary s = summary.get();
  ASSERT_TRUE(s.completed) << s.error;
  const ComponentSummary& gen = *s.Find("gen");
  EXPECT_GT(s.Find("slow")->failed, 0u);  // it was overloaded: stale tuples were failed
  EXPECT_EQ(gen.acked, static_cast<uint64_t>(kCount));
  EXPECT_EQ(gen.pending, 0u);
  EXPECT_EQ(Ids(*recorder), Range(kCount));  // replays may repeat some, none is missing
}

TEST_P(TrackedBy, ResetTimeoutKeepsWorkLongerThanTheTimeoutAlive) {
  topology::TopologyBuilder b;
  b.Config().message_timeout_secs = 1;
  b.SetSpout("gen", testing::Generator(50));
  // Held for 2.5 s: without resets every tree would have timed out (after 1 to 2 s).
  b.SetBolt("slow", [] {
     return std::make_unique<SlowBolt>(std::chrono::milliseconds(2500), true);
   }).ShuffleGrouping("gen");
  const RunSummary s = Run(b.Build());
  ASSERT_TRUE(s.completed) << s.error;
  const ComponentSummary& gen = *s.Find("gen");
  EXPECT_EQ(gen.timed_out, 0u);
  EXPECT_EQ(gen.failed, 0u);
  EXPECT_EQ(gen.acked, 50u);
}

TEST(AckingTest, WithoutResetsTheSameWorkTimesOut) {
  topology::TopologyBuilder b;
  b.Config().message_timeout_secs = 1;
  b.SetSpout("gen", testing::Generator(50));
  // The first batch times out and is replayed; what is held when it expires is acked late
  // (ignored: the spout forgot it), the replays are then acked in time.
  b.SetBolt("slow", [] {
     return std::make_unique<SlowBolt>(std::chrono::milliseconds(2500), false);
   }).ShuffleGrouping("gen");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  const ComponentSummary& gen = *s.Find("gen");
  EXPECT_GE(gen.timed_out, 50u);
  EXPECT_EQ(gen.replayed, gen.failed);
  EXPECT_EQ(gen.acked, 50u);
}

// Counts what it received before and after its flush.
class FlushAwareSink : public topology::Bolt {
 public:
  explicit FlushAwareSink(std::shared_ptr<testing::Recorder> r) : r_(std::move(r)) {}
  void Prepare(const TopologyContext&, OutputCollector& out) override { out_ = &out; }
  void Execute(const Tuple& t) override {
    r_->Add(0, t);
    if (flushed_) r_->Note("after flush: " + std::to_string(t.GetInt(0)));
    out_->Ack(t);
  }
  void OnEndOfStream() override { flushed_ = true; }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  std::shared_ptr<testing::Recorder> r_;
  OutputCollector* out_ = nullptr;
  bool flushed_ = false;
};

TEST(AckingTest, TuplesReplayedAfterTheFlushStillReachTheSink) {
  constexpr int kCount = 100;
  auto recorder = std::make_shared<testing::Recorder>();
  topology::TopologyBuilder b;
  b.SetSpout("gen", testing::Generator(kCount));
  // The last id fails once: the spout is already exhausted (end-of-stream is on its way) when
  // the failure comes back, so the replay follows the end-of-stream.
  b.SetBolt("picky", Picky([](int64_t id) { return id == kCount - 1; })).ShuffleGrouping("gen");
  b.SetBolt("sink", [recorder] {
     return std::make_unique<FlushAwareSink>(recorder);
   }).ShuffleGrouping("picky");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(Ids(*recorder), Range(kCount));
  EXPECT_EQ(recorder->events(), std::vector<std::string>{"after flush: 99"});
  EXPECT_EQ(s.Find("gen")->replayed, 1u);
}

class FailAll : public topology::Bolt {
 public:
  void Prepare(const TopologyContext&, OutputCollector& out) override { out_ = &out; }
  void Execute(const Tuple& t) override { out_->Fail(t); }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  OutputCollector* out_ = nullptr;
};

TEST(AckingTest, WithoutAckersTuplesAreAckedAsTheyAreEmitted) {
  topology::TopologyBuilder b;
  b.Config().acker_executors = 0;
  b.SetSpout("gen", testing::Generator(500));
  b.SetBolt("fail", [] { return std::make_unique<FailAll>(); }).ShuffleGrouping("gen");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(s.Find("gen")->acked, 500u);
  EXPECT_EQ(s.Find("gen")->failed, 0u);
  EXPECT_EQ(s.Find("gen")->emitted, 500u);  // nothing replayed
  EXPECT_EQ(s.Find("fail")->failed, 500u);
}

// Emits ids 0..count-1 without message ids (untracked), then is exhausted.
class UntrackedSpout : public topology::Spout {
 public:
  explicit UntrackedSpout(int64_t count) : count_(count) {}
  void Open(const TopologyContext&, topology::SpoutOutputCollector& out) override { out_ = &out; }
  topology::NextResult NextTuple() override {
    if (next_ >= count_) return topology::NextResult::kExhausted;
    out_->Emit(Values{next_++});
    return topology::NextResult::kEmitted;
  }
  void Fail(const Value&) override { ADD_FAILURE() << "an untracked tuple was failed back"; }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& d) const override { d.Declare({"id"}); }

 private:
  int64_t count_;
  topology::SpoutOutputCollector* out_ = nullptr;
  int64_t next_ = 0;
};

TEST(AckingTest, EmitsWithoutMessageIdsAreNotTracked) {
  topology::TopologyBuilder b;
  b.SetSpout("untracked", [] { return std::make_unique<UntrackedSpout>(200); });
  b.SetBolt("fail", [] { return std::make_unique<FailAll>(); }).ShuffleGrouping("untracked");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  const ComponentSummary& spout = *s.Find("untracked");
  EXPECT_EQ(spout.emitted, 200u);
  EXPECT_EQ(spout.acked, 0u);
  EXPECT_EQ(spout.failed, 0u);
  EXPECT_EQ(spout.pending, 0u);
  EXPECT_EQ(s.Find("fail")->failed, 200u);
}

// A NullBolt acks a batch at a time: tracked rows each complete their tree, untracked ones are
// counted, and batches mixing both (two spouts into one sink) lose neither kind.
TEST(AckingTest, ANullBoltAcksEveryRowOfItsBatchesTrackedOrNot) {
  static constexpr int kTracked = 3000;
  static constexpr int kUntracked = 2000;
  topology::TopologyBuilder b;
  b.SetSpout("tracked", testing::Generator(kTracked));
  b.SetSpout("untracked", [] { return std::make_unique<UntrackedSpout>(kUntracked); });
  b.SetBolt("sink", [] { return std::make_unique<bolts::NullBolt>(); })
      .ShuffleGrouping("tracked")
      .ShuffleGrouping("untracked");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(s.Find("tracked")->acked, static_cast<uint64_t>(kTracked));
  EXPECT_EQ(s.Find("tracked")->failed, 0u);
  EXPECT_EQ(s.Find("tracked")->pending, 0u);
  EXPECT_EQ(s.Find("untracked")->acked, 0u);
  EXPECT_EQ(s.Find("sink")->acked, static_cast<uint64_t>(kTracked + kUntracked));
  EXPECT_EQ(s.Find("sink")->failed, 0u);
}

// A bolt's input tuple is filled from the next row of its batch before the row before it runs:
// every row must still reach the bolt as its own values, whatever the rows around it hold (other
// streams, field counts and kinds), a copy of an input must keep its values, and acking that
// copy one input later must complete its tree.
TEST(AckingTest, EachInputOfABatchKeepsItsOwnValuesAndAcksAsACopy) {
  static constexpr int kCount = 5000;
  // Row n: stream "short" (a short string, n) for even n; "long" (a 40-character string, n, n/2
  // as a double) for odd n.
  const auto text = [](int64_t n, bool long_text) {
    std::string s = "w" + std::to_string(n);
    if (long_text) s.resize(40, static_cast<char>('a' + n % 26));
    return s;
  };
  const auto matches = [text](const Tuple& t) {
    const int64_t n = t.GetInt(1);
    if (n % 2 == 0) {
      return t.GetSourceStreamId() == "short" && t.size() == 2 && t.GetString(0) == text(n, false);
    }
    return t.GetSourceStreamId() == "long" && t.size() == 3 && t.GetString(0) == text(n, true) &&
           t.GetDouble(2) == static_cast<double>(n) / 2;
  };
  struct Seen {
    std::set<int64_t> ids;
    int wrong = 0;
  };
  auto seen = std::make_shared<Seen>();
  topology::TopologyBuilder b;
  // A tree that is never acked then fails the test within seconds, instead of replaying.
  b.Config().message_timeout_secs = 5;
  b.Config().max_spout_retries = 0;
  b.SetSpout("gen", testing::Generator(kCount));
  b.SetBolt("mix", [text] {
     return std::make_unique<testing::LambdaBolt>(
         std::map<std::string, topology::Fields>{{"short", {"s", "n"}},
                                                 {"long", {"s", "n", "half"}}},
         [text](const Tuple& t, topology::OutputCollector& out, const topology::TopologyContext&) {
           const int64_t n = t.GetInt(0);
           if (n % 2 == 0) {
             out.Emit("short", t, {text(n, false), n});
           } else {
             out.Emit("long", t, {text(n, true), n, static_cast<double>(n) / 2});
           }
           out.Ack(t);
         });
   }).ShuffleGrouping("gen");
  b.SetBolt("check",
            [seen, matches] {
              auto previous = std::make_shared<std::optional<Tuple>>();
              return std::make_unique<testing::LambdaBolt>(
                  std::map<std::string, topology::Fields>{},
                  [seen, matches, previous](const Tuple& t, topology::OutputCollector& out,
                                            const topology::TopologyContext&) {
                    if (!matches(t)) ++seen->wrong;
                    seen->ids.insert(t.GetInt(1));
                    if (*previous) {
                      if (!matches(**previous)) ++seen->wrong;
                      out.Ack(**previous);
                    }
                    *previous = t;
                  },
                  [previous](topology::OutputCollector& out) {
                    if (*previous) out.Ack(**previous);
                  });
            })
      .ShuffleGrouping("mix", "short")
      .ShuffleGrouping("mix", "long");
  const RunSummary s = LocalCluster(b.Build()).Run();
  ASSERT_TRUE(s.completed) << s.error;
  EXPECT_EQ(seen->wrong, 0);
  EXPECT_EQ(seen->ids.size(), static_cast<std::size_t>(kCount));
  EXPECT_EQ(s.Find("gen")->acked, static_cast<uint64_t>(kCount));
  EXPECT_EQ(s.Find("gen")->failed, 0u);
  EXPECT_EQ(s.Find("check")->acked, static_cast<uint64_t>(kCount));
}

}  // namespace
}  // namespace tempest::runtime

#include "runtime/queues/task_queue.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "runtime/queues/outbox.h"

namespace tempest::runtime {
namespace {

Envelope Batch(int from, int first, int n) {
  Envelope e{Envelope::Kind::kTuples, from, {}, {}, 0, {}};
  for (int i = 0; i < n; ++i) e.rows.Append(nullptr, topology::Values{first + i});
  return e;
}

// The first field of each row of `e`.
std::vector<int64_t> Ints(const Envelope& e) {
  std::vector<int64_t> out;
  for (std::size_t i = 0; i < e.rows.size(); ++i) out.push_back(e.rows[i].cell(0).Int());
  return out;
}

TEST(TaskQueueTest, KeepsEachProducersOrder) {
  TaskQueue q(1 << 20);
  constexpr int kProducers = 3, kBatches = 2000;
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&q, p] {
      for (int b = 0; b < kBatches; ++b) ASSERT_TRUE(q.Push(Batch(p, b * 4, 4)));
      ASSERT_TRUE(q.Push(Envelope{Envelope::Kind::kEndOfStream, p, {}, {}, 0, {}}));
    });
  }
  std::map<int, int64_t> next;
  int ended = 0;
  std::vector<Envelope> got;
  while (ended < kProducers && q.PopAll(got)) {
    for (const Envelope& e : got) {
      if (e.kind == Envelope::Kind::kEndOfStream) {
        EXPECT_EQ(next[e.from_task], kBatches * 4);  // end-of-stream after all its tuples
        ++ended;
        continue;
      }
      for (int64_t v : Ints(e)) EXPECT_EQ(v, next[e.from_task]++);
    }
    got.clear();
  }
  for (auto& t : producers) t.join();
  EXPECT_EQ(ended, kProducers);
}

TEST(TaskQueueTest, APushIntoAFullQueueWaitsForThePop) {
  TaskQueue q(10);
  ASSERT_TRUE(q.Push(Batch(1, 0, 10)));
  std::thread producer([&] { EXPECT_TRUE(q.Push(Batch(1, 10, 5))); });
  while (q.GetStats().blocked_pushes == 0) std::this_thread::yield();
  std::vector<Envelope> got;
  ASSERT_TRUE(q.PopAll(got));  // makes room; the producer completes
  producer.join();
  ASSERT_TRUE(q.PopAll(got));  // recycles the first batch, hands over the second
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(Ints(got[0]).front(), 10);
  EXPECT_EQ(q.GetStats().high_water_tuples, 10u);
  EXPECT_EQ(q.GetStats().blocked_pushes, 1u);
}

TEST(TaskQueueTest, ProcessedBatchBuffersGoBackToProducers) {
  TaskQueue q(100);
  ASSERT_TRUE(q.Push(Batch(1, 0, 40)));
  std::vector<Envelope> got;
  ASSERT_TRUE(q.PopAll(got));
  Envelope spare;
  ASSERT_TRUE(q.Push(Batch(1, 40, 1)));
  ASSERT_TRUE(q.PopAll(got));  // takes the 40-tuple buffer back, emptied
  ASSERT_TRUE(q.Push(Batch(1, 41, 1), &spare));
  EXPECT_TRUE(spare.rows.empty());
  EXPECT_GE(spare.rows.capacity(), 40u);  // the same buffers, reused
}

TEST(TaskQueueTest, AckMessageBuffersGoBackToProducersToo) {
  TaskQueue q(100);
  Envelope acks{Envelope::Kind::kAcks, 1, {}, {}, 0, {}};
  acks.acks.resize(30);
  ASSERT_TRUE(q.Push(std::move(acks)));
  std::vector<Envelope> got;
  ASSERT_TRUE(q.PopAll(got));
  ASSERT_TRUE(q.Push(Batch(1, 0, 1)));
  ASSERT_TRUE(q.PopAll(got));  // takes the ack buffer back
  Envelope spare;
  ASSERT_TRUE(q.Push(Batch(1, 1, 1), &spare));  // tuples get no ack buffer
  EXPECT_EQ(spare.acks.capacity(), 0u);
  Envelope more{Envelope::Kind::kAcks, 1, {}, {}, 0, {}};
  more.acks.resize(1);
  ASSERT_TRUE(q.PushWithoutWaiting(std::move(more), &spare));
  EXPECT_TRUE(spare.acks.empty());
  EXPECT_GE(spare.acks.capacity(), 30u);
}

TEST(TaskQueueTest, CloseWakesABlockedConsumerAndRefusesPushes) {
  TaskQueue q(10);
  std::thread consumer([&] {
    std::vector<Envelope> got;
    EXPECT_FALSE(q.PopAll(got));
  });
  q.Close();
  consumer.join();
  EXPECT_FALSE(q.Push(Batch(1, 0, 1)));
}

TEST(TaskQueueTest, CloseStillHandsOverWhatIsQueued) {
  TaskQueue q(10);
  ASSERT_TRUE(q.Push(Batch(1, 0, 3)));
  q.Close();
  std::vector<Envelope> got;
  EXPECT_TRUE(q.PopAll(got));
  EXPECT_EQ(got.size(), 1u);
  got.clear();
  EXPECT_FALSE(q.PopAll(got));
}

// Waits (yielding) until the consumer is blocked in its wait for the `n`th time.
void AwaitConsumerWaiting(const TaskQueue& q, uint64_t n) {
  while (q.GetStats().consumer_waits < n) std::this_thread::yield();
}

// Pops until `want` tuples have arrived; returns them in arrival order.
std::vector<int64_t> PopTuples(TaskQueue& q, std::size_t want) {
  std::vector<int64_t> got;
  std::vector<Envelope> batch;
  while (got.size() < want && q.PopAll(batch)) {
    for (const Envelope& e : batch) {
      for (int64_t v : Ints(e)) got.push_back(v);
    }
  }
  return got;
}

// Starts a consumer popping `want` tuples, waits until `ready(q)` returns (the consumer sleeps,
// or yields), runs `act`, and returns what the consumer got.
template <typename Ready, typename Act>
std::vector<int64_t> PopAround(TaskQueue& q, std::size_t want, Ready ready, Act act) {
  std::vector<int64_t> got;
  std::thread consumer([&] { got = PopTuples(q, want); });
  ready(q);
  act();
  consumer.join();
  return got;
}
const auto kSleeping = [](const TaskQueue& q) { AwaitConsumerWaiting(q, 1); };

TEST(TaskQueueTest, LaterPushesWakeAWaitingConsumerOnlyFromAnEighthOfTheCapacity) {
  TaskQueue q(80);  // wakes from 10 tuples
  std::vector<int64_t> got;
  std::thread consumer([&] { got = PopTuples(q, 12); });
  AwaitConsumerWaiting(q, 1);
  ASSERT_TRUE(q.Push(Batch(1, 0, 4), nullptr, TaskQueue::WakeConsumer::kLater));
  ASSERT_TRUE(q.Push(Batch(1, 4, 4), nullptr, TaskQueue::WakeConsumer::kLater));
  EXPECT_EQ(q.GetStats().wakeups, 0u);  // 8 queued: the consumer sleeps on
  ASSERT_TRUE(q.Push(Batch(1, 8, 4), nullptr, TaskQueue::WakeConsumer::kLater));
  consumer.join();
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(q.GetStats().wakeups, 1u);
}

TEST(TaskQueueTest, WakeHandsOverWhatLaterPushesQueued) {
  TaskQueue q(1000);
  std::vector<int64_t> got;
  std::thread consumer([&] { got = PopTuples(q, 3); });
  AwaitConsumerWaiting(q, 1);
  ASSERT_TRUE(q.Push(Batch(1, 0, 3), nullptr, TaskQueue::WakeConsumer::kLater));
  EXPECT_EQ(q.GetStats().wakeups, 0u);
  q.Wake();
  consumer.join();
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(q.GetStats().wakeups, 1u);
  q.Wake();  // nothing queued, nobody waiting: no wake-up
  EXPECT_EQ(q.GetStats().wakeups, 1u);
}

// ---- The yield phase (topology.wait.yield.micros): a consumer yields before it sleeps.

constexpr auto kLongYield = std::chrono::seconds(30);  // longer than any test: never runs out

void AwaitConsumerYielding(const TaskQueue& q, uint64_t n) {
  while (q.GetStats().yields < n) std::this_thread::yield();
}
const auto kYielding = [](const TaskQueue& q) { AwaitConsumerYielding(q, 1); };

// The producer's wake-up reaches a yielding consumer as a flag: no signal, no sleep.
TEST(TaskQueueYieldTest, AYieldingConsumerTakesAPushWithoutSleeping) {
  TaskQueue q(80, kLongYield);
  EXPECT_EQ(PopAround(q, 3, kYielding, [&] { ASSERT_TRUE(q.Push(Batch(1, 0, 3))); }),
            (std::vector<int64_t>{0, 1, 2}));
  const TaskQueue::Stats s = q.GetStats();
  EXPECT_EQ(s.consumer_waits, 0u);  // it never slept
  EXPECT_EQ(s.yields, 1u);
  EXPECT_EQ(s.yields_ended_by_input, 1u);
  EXPECT_EQ(s.wakeups, 1u);
}

// Deferred wake-ups hold while the consumer yields: it takes nothing until an eighth of the
// capacity is queued, then everything at once (one yield, one take).
TEST(TaskQueueYieldTest, LaterPushesEndAYieldOnlyFromAnEighthOfTheCapacity) {
  TaskQueue q(80, kLongYield);  // wakes from 10 tuples
  std::vector<int64_t> got;
  std::thread consumer([&] { got = PopTuples(q, 12); });
  AwaitConsumerYielding(q, 1);
  ASSERT_TRUE(q.Push(Batch(1, 0, 4), nullptr, TaskQueue::WakeConsumer::kLater));
  ASSERT_TRUE(q.Push(Batch(1, 4, 4), nullptr, TaskQueue::WakeConsumer::kLater));
  EXPECT_EQ(q.GetStats().wakeups, 0u);
  ASSERT_TRUE(q.Push(Batch(1, 8, 4), nullptr, TaskQueue::WakeConsumer::kLater));
  consumer.join();
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(q.GetStats().yields, 1u);  // taken in one go
  EXPECT_EQ(q.GetStats().wakeups, 1u);
}

TEST(TaskQueueYieldTest, CloseEndsAYield) {
  TaskQueue q(80, kLongYield);
  std::vector<Envelope> got;
  bool popped = true;
  std::thread consumer([&] { popped = q.PopAll(got); });
  AwaitConsumerYielding(q, 1);
  q.Close();
  consumer.join();
  EXPECT_FALSE(popped);
  EXPECT_EQ(q.GetStats().consumer_waits, 0u);
}

TEST(TaskQueueYieldTest, AYieldThatRunsOutSleepsUntilAWakeUp) {
  TaskQueue q(80, std::chrono::microseconds(50));
  std::vector<int64_t> got;
  std::thread consumer([&] { got = PopTuples(q, 2); });
  AwaitConsumerWaiting(q, 1);  // yielded 50 us, then went to sleep
  EXPECT_EQ(q.GetStats().yields, 1u);
  EXPECT_EQ(q.GetStats().yields_ended_by_input, 0u);
  ASSERT_TRUE(q.Push(Batch(1, 0, 2)));
  consumer.join();
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1}));
}

// Many short yields against a producer whose every push fills the queue: a wake-up that comes
// just as a yield runs out must still end the wait, or the producer blocks on the full queue
// while the consumer sleeps, and both hang.
TEST(TaskQueueYieldTest, NoWakeUpIsLostAsYieldsRunOut) {
  constexpr int kCapacity = 16, kTuples = 100'000;
  TaskQueue q(kCapacity, std::chrono::microseconds(1));
  std::vector<int64_t> got;
  std::thread consumer([&] { got = PopTuples(q, kTuples); });
  for (int i = 0; i < kTuples; i += kCapacity) {
    ASSERT_TRUE(q.Push(Batch(1, i, kCapacity), nullptr, TaskQueue::WakeConsumer::kLater));
  }
  q.Wake();
  consumer.join();
  ASSERT_EQ(got.size(), static_cast<std::size_t>(kTuples));
  for (int i = 0; i < kTuples; ++i) ASSERT_EQ(got[i], i);
  EXPECT_GT(q.GetStats().yields, 0u);
}

// An outbox with batches of 4 sends one full batch (handed over without waking the consumer)
// and `after` more tuples, then flushes: the consumer wakes once and gets all of them.
void ExpectAFullBatchWaitsForTheFlush(int64_t after) {
  TaskQueue q(1024);
  Outbox::Options options;
  options.batch_size = 4;
  const std::vector<TaskQueue*> queues = {nullptr, nullptr, &q};
  Outbox outbox(1, queues, {{2}, {}, {}}, options);
  std::vector<int64_t> got;
  std::thread consumer([&] { got = PopTuples(q, static_cast<std::size_t>(4 + after)); });
  AwaitConsumerWaiting(q, 1);
  std::vector<int64_t> sent;
  for (int64_t i = 0; i < 4 + after; ++i) {
    outbox.Send(2, nullptr, topology::Values{i});
    sent.push_back(i);
    if (i == 3) {
      EXPECT_EQ(q.GetStats().wakeups, 0u);  // the full batch is queued, unannounced
    }
  }
  outbox.Flush();
  consumer.join();
  EXPECT_EQ(got, sent);
  EXPECT_EQ(q.GetStats().wakeups, 1u);
}

TEST(TaskQueueTest, AnOutboxFlushWakesItsConsumerForAFullBatchAndTheRest) {
  ExpectAFullBatchWaitsForTheFlush(1);  // the partial batch's push wakes it
}

TEST(TaskQueueTest, AnOutboxFlushWakesItsConsumerForAFullBatchWithNothingAfterIt) {
  ExpectAFullBatchWaitsForTheFlush(0);  // nothing left to push: Flush wakes it on its own
}

// An outbox keeps state only for the tasks it sends to, found by id however far apart the ids
// are: tuples, acks and markers each reach the right queue.
TEST(TaskQueueTest, AnOutboxReachesFarApartDestinationsOfAWideTopology) {
  constexpr int kTasks = 100'000;
  TaskQueue near(1024), far(1024), acker(1024);
  std::vector<TaskQueue*> queues(kTasks + 1, nullptr);
  queues[7] = &near;
  queues[kTasks - 1] = &far;
  queues[kTasks] = &acker;
  Outbox::Options options;
  options.batch_size = 2;
  Outbox outbox(1, queues, {{7, kTasks - 1}, {kTasks}, {}}, options);
  for (int64_t i = 0; i < 5; ++i) outbox.Send(i % 2 == 0 ? 7 : kTasks - 1, nullptr, {i});
  outbox.SendAck(kTasks, transport::AckMessage::Type::kAck, 42, 9);
  outbox.SendClose({7, kTasks - 1, kTasks});
  // What each queue got: tuple values, ack roots, then -1 for the close.
  const auto got = [](TaskQueue& q) {
    std::vector<Envelope> envelopes;
    std::vector<int64_t> out;
    while (out.empty() || out.back() != -1) {
      EXPECT_TRUE(q.PopAll(envelopes));
      for (const Envelope& e : envelopes) {
        EXPECT_EQ(e.from_task, 1);
        for (int64_t v : Ints(e)) out.push_back(v);
        for (const transport::AckMessage& m : e.acks) out.push_back(static_cast<int64_t>(m.root));
        if (e.kind == Envelope::Kind::kClose) out.push_back(-1);
      }
    }
    return out;
  };
  EXPECT_EQ(got(near), (std::vector<int64_t>{0, 2, 4, -1}));
  EXPECT_EQ(got(far), (std::vector<int64_t>{1, 3, -1}));
  EXPECT_EQ(got(acker), (std::vector<int64_t>{42, -1}));
  EXPECT_TRUE(outbox.open());
}

TEST(TaskQueueTest, AnOutboxFoldsAnAckIntoTheAckOfTheSameTreeBeforeIt) {
  TaskQueue acker(1024);
  std::vector<TaskQueue*> queues = {nullptr, nullptr, &acker};
  Outbox outbox(1, queues, {{}, {2}, {}}, Outbox::Options{});
  using Type = transport::AckMessage::Type;
  const std::vector<transport::AckMessage> sent = {
      {Type::kAck, 42, 0b0001}, {Type::kAck, 42, 0b0010}, {Type::kAck, 42, 0b0100},
      {Type::kAck, 43, 0b1000}, {Type::kAck, 42, 0b0001}, {Type::kFail, 42, 0},
      {Type::kAck, 42, 0b0110}};
  for (const transport::AckMessage& m : sent) outbox.SendAck(2, m.type, m.root, m.value);
  outbox.Flush();
  std::vector<Envelope> got;
  ASSERT_TRUE(acker.PopAll(got));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].acks, (std::vector<transport::AckMessage>{{Type::kAck, 42, 0b0111},
                                                             {Type::kAck, 43, 0b1000},
                                                             {Type::kAck, 42, 0b0001},
                                                             {Type::kFail, 42, 0},
                                                             {Type::kAck, 42, 0b0110}}));
}

// An ack rides on the last tracked row sent to a local task while that row's batch is open and
// the row belongs to the ack's tree alone: the row's edge takes the ack's value. Not on a row of
// another tree, not to an edge of 0, and not once the batch has gone.
TEST(TaskQueueTest, AnOutboxFoldsAnAckIntoItsLastTrackedRowUntilTheRowLeaves) {
  TaskQueue q(1024);
  Outbox::Options options;
  options.batch_size = 3;
  const std::vector<TaskQueue*> queues = {nullptr, nullptr, &q};
  Outbox outbox(1, queues, {{2}, {}, {}}, options);
  using Anchor = topology::AckMeta::Anchor;
  EXPECT_FALSE(outbox.FoldAck(42, 0b0110));  // nothing sent yet
  const Anchor tracked{42, 0b0001};
  outbox.Send(2, nullptr, topology::Values{int64_t{0}}, Outbox::AnchorList(&tracked, 1));
  outbox.Send(2, nullptr, topology::Values{int64_t{1}});  // untracked: the carrier stays row 0
  EXPECT_FALSE(outbox.FoldAck(43, 0b0110));               // another tree
  EXPECT_FALSE(outbox.FoldAck(42, 0b0001));               // would leave an edge of 0
  EXPECT_TRUE(outbox.FoldAck(42, 0b0110));
  EXPECT_TRUE(outbox.FoldAck(42, 0b1000));
  const Anchor two[] = {{42, 0b10000}, {44, 0b10000}};
  outbox.Send(2, nullptr, topology::Values{int64_t{2}}, Outbox::AnchorList(two, 2));  // full: sent
  EXPECT_FALSE(outbox.FoldAck(42, 0b0110));  // row 0 has left with its batch
  std::vector<Envelope> got;
  ASSERT_TRUE(q.PopAllUntil(got, std::chrono::steady_clock::now()));
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(Ints(got[0]), (std::vector<int64_t>{0, 1, 2}));
  const auto row0 = got[0].rows[0].anchors();
  EXPECT_EQ(std::vector<Anchor>(row0.begin(), row0.end()), (std::vector<Anchor>{{42, 0b1111}}));
  EXPECT_TRUE(got[0].rows[1].anchors().empty());
  const auto row2 = got[0].rows[2].anchors();
  EXPECT_EQ(std::vector<Anchor>(row2.begin(), row2.end()),
            (std::vector<Anchor>{{42, 0b10000}, {44, 0b10000}}));
}

// A task's network inbox stand-in: envelopes "arrive" through Deliver, which also makes its
// own eventfd readable, as a socket would be. Wait records what ended it; it gives up after
// five seconds so that a missed wake-up fails the test instead of hanging it.
class FakeSource : public EnvelopeSource {
 public:
  FakeSource() : arrival_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~FakeSource() override { ::close(arrival_fd_); }

  void Deliver(Envelope e) {
    {
      std::lock_guard lock(mu_);
      arrived_.push_back(std::move(e));
    }
    const uint64_t one = 1;
    ASSERT_EQ(::write(arrival_fd_, &one, sizeof one), static_cast<ssize_t>(sizeof one));
  }
  void Drain(std::vector<Envelope>& out) override {
    uint64_t count = 0;
    [[maybe_unused]] const ssize_t n = ::read(arrival_fd_, &count, sizeof count);
    std::lock_guard lock(mu_);
    for (Envelope& e : arrived_) out.push_back(std::move(e));
    arrived_.clear();
  }
  void Wait(int wake_fd, int timeout_ms) override {
    pollfd fds[2] = {{arrival_fd_, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    const int limit = timeout_ms < 0 ? 5000 : std::min(timeout_ms, 5000);
    const int ready = ::poll(fds, 2, limit);
    std::lock_guard lock(mu_);
    ++waits_;
    if (ready == 0) ++timeouts_;
    if ((fds[1].revents & POLLIN) != 0) ++woken_by_queue_;
  }
  int waits() const {
    std::lock_guard lock(mu_);
    return waits_;
  }
  int timeouts() const {
    std::lock_guard lock(mu_);
    return timeouts_;
  }
  int woken_by_queue() const {
    std::lock_guard lock(mu_);
    return woken_by_queue_;
  }

 private:
  const int arrival_fd_;
  mutable std::mutex mu_;
  std::vector<Envelope> arrived_;
  int waits_ = 0, timeouts_ = 0, woken_by_queue_ = 0;
};

class TaskQueueSourceTest : public ::testing::Test {
 protected:
  void SetUp() override { q_.AttachSource(&source_); }

  // Starts a consumer popping `want` tuples, waits until it sleeps, runs `wake`, and returns
  // what the consumer got.
  template <typename Wake>
  std::vector<int64_t> PopAfter(std::size_t want, Wake wake) {
    return PopAround(q_, want, kSleeping, wake);
  }

  TaskQueue q_{1000};
  FakeSource source_;
};

TEST_F(TaskQueueSourceTest, APopTakesTheQueueFirstThenTheSource) {
  source_.Deliver(Batch(2, 100, 2));
  ASSERT_TRUE(q_.Push(Batch(1, 0, 3)));
  std::vector<Envelope> got;
  ASSERT_TRUE(q_.PopAll(got));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].from_task, 1);
  EXPECT_EQ(got[1].from_task, 2);
  EXPECT_EQ(Ints(got[1]).at(1), 101);
  EXPECT_EQ(q_.GetStats().high_water_tuples, 5u);  // both count as queued
  EXPECT_EQ(source_.waits(), 0);                   // something was there: no wait
}

TEST_F(TaskQueueSourceTest, AnArrivalInTheSourceWakesAWaitingConsumer) {
  EXPECT_EQ(PopAfter(2, [&] { source_.Deliver(Batch(2, 7, 2)); }), (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(source_.timeouts(), 0);
  EXPECT_EQ(source_.woken_by_queue(), 0);
}

// The consumer sleeps in the source's Wait, not on the condition variable: a push must make
// the wake fd readable, or the consumer sleeps until the source's five-second limit.
TEST_F(TaskQueueSourceTest, APushWakesAConsumerWaitingInTheSource) {
  EXPECT_EQ(PopAfter(3, [&] { ASSERT_TRUE(q_.Push(Batch(1, 0, 3))); }),
            (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(source_.timeouts(), 0);
  EXPECT_EQ(source_.woken_by_queue(), 1);
  EXPECT_EQ(q_.GetStats().wakeups, 1u);
}

TEST_F(TaskQueueSourceTest, LaterPushesWakeAConsumerInTheSourceOnlyOnWake) {
  EXPECT_EQ(
      PopAfter(2,
               [&] {
                 ASSERT_TRUE(q_.Push(Batch(1, 0, 2), nullptr, TaskQueue::WakeConsumer::kLater));
                 EXPECT_EQ(q_.GetStats().wakeups, 0u);
                 q_.Wake();
               }),
      (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(source_.timeouts(), 0);
}

TEST_F(TaskQueueSourceTest, CloseWakesAConsumerWaitingInTheSource) {
  EXPECT_TRUE(PopAfter(1, [&] { q_.Close(); }).empty());  // PopAll returned false
  EXPECT_EQ(source_.timeouts(), 0);
}

// A consumer with a source, yielding: what arrives there or is pushed is taken unsignalled.
class TaskQueueYieldSourceTest : public ::testing::Test {
 protected:
  void SetUp() override { q_.AttachSource(&source_); }

  template <typename Arrive>
  std::vector<int64_t> PopWhileYielding(std::size_t want, Arrive arrive) {
    std::vector<int64_t> got = PopAround(q_, want, kYielding, arrive);
    EXPECT_EQ(source_.waits(), 0);  // never slept in the source
    EXPECT_EQ(q_.GetStats().yields_ended_by_input, 1u);
    return got;
  }

  TaskQueue q_{1000, kLongYield};
  FakeSource source_;
};

TEST_F(TaskQueueYieldSourceTest, WhatArrivesInTheSourceIsTaken) {
  EXPECT_EQ(PopWhileYielding(2, [&] { source_.Deliver(Batch(2, 7, 2)); }),
            (std::vector<int64_t>{7, 8}));
}

TEST_F(TaskQueueYieldSourceTest, APushIsTaken) {
  EXPECT_EQ(PopWhileYielding(3, [&] { ASSERT_TRUE(q_.Push(Batch(1, 0, 3))); }),
            (std::vector<int64_t>{0, 1, 2}));
}

TEST_F(TaskQueueSourceTest, PopUntilGivesUpAtItsDeadline) {
  std::vector<Envelope> got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  EXPECT_TRUE(q_.PopAllUntil(got, deadline));
  EXPECT_TRUE(got.empty());
  EXPECT_GE(std::chrono::steady_clock::now(), deadline);
  EXPECT_GE(source_.waits(), 1);
}

}  // namespace
}  // namespace tempest::runtime

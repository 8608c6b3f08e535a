#include "runtime/task_queue.h"

#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "runtime/outbox.h"

namespace tempest::runtime {
namespace {

Envelope Batch(int from, int first, int n) {
  Envelope e{Envelope::Kind::kTuples, from, {}, {}, 0, {}};
  for (int i = 0; i < n; ++i) e.tuples.emplace_back(nullptr, from, topology::Values{first + i});
  return e;
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
      for (const auto& t : e.tuples) EXPECT_EQ(t.GetInt(0), next[e.from_task]++);
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
  EXPECT_EQ(got[0].tuples.front().GetInt(0), 10);
  EXPECT_EQ(q.GetStats().high_water_tuples, 10u);
  EXPECT_EQ(q.GetStats().blocked_pushes, 1u);
}

TEST(TaskQueueTest, ProcessedBatchBuffersGoBackToProducers) {
  TaskQueue q(100);
  ASSERT_TRUE(q.Push(Batch(1, 0, 40)));
  std::vector<Envelope> got;
  ASSERT_TRUE(q.PopAll(got));
  const topology::Tuple* buffer = got[0].tuples.data();
  std::vector<topology::Tuple> spare;
  ASSERT_TRUE(q.Push(Batch(1, 40, 1)));
  ASSERT_TRUE(q.PopAll(got));  // takes the 40-tuple buffer back, emptied
  ASSERT_TRUE(q.Push(Batch(1, 41, 1), &spare));
  EXPECT_TRUE(spare.empty());
  EXPECT_GE(spare.capacity(), 40u);
  EXPECT_EQ(spare.data(), buffer);  // the same allocation, reused
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
      for (const auto& t : e.tuples) got.push_back(t.GetInt(0));
    }
  }
  return got;
}

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

// An outbox with batches of 4 sends one full batch (handed over without waking the consumer)
// and `after` more tuples, then flushes: the consumer wakes once and gets all of them.
void ExpectAFullBatchWaitsForTheFlush(int64_t after) {
  TaskQueue q(1024);
  Outbox::Options options;
  options.batch_size = 4;
  Outbox outbox(1, {nullptr, nullptr, &q}, options);
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

}  // namespace
}  // namespace tempest::runtime

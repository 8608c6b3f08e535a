#include "bolts/join/timer_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace tempest::bolts {
namespace {

struct T {
  int64_t at = 0;
  int id = 0;  // arrival number: shows which of two equal timers comes out first
  bool operator<(const T& o) const noexcept { return at < o.at; }
};

std::vector<int> Drain(TimerQueue<T>& q) {
  std::vector<int> ids;
  while (const T* f = q.Front()) {
    ids.push_back(f->id);
    q.Pop(f);
  }
  return ids;
}

TEST(TimerQueueTest, EmptyHasNoFront) {
  TimerQueue<T> q;
  EXPECT_EQ(q.Front(), nullptr);
  q.Push({5, 1});
  q.Pop(q.Front());
  EXPECT_EQ(q.Front(), nullptr);
}

TEST(TimerQueueTest, OutOfOrderTimersComeOutSmallestFirst) {
  TimerQueue<T> q;
  q.Push({10, 1});
  q.Push({20, 2});
  q.Push({15, 3});  // behind 20: goes out of order
  q.PushOutOfOrder({30, 4});
  q.Push({5, 5});
  EXPECT_EQ(Drain(q), (std::vector<int>{5, 1, 3, 2, 4}));
}

TEST(TimerQueueTest, AnInOrderTimerWinsATieWithAnOutOfOrderOne) {
  TimerQueue<T> q;
  q.Push({10, 1});
  q.PushOutOfOrder({10, 2});
  q.Push({10, 3});
  EXPECT_EQ(Drain(q), (std::vector<int>{1, 3, 2}));
}

// Against a stable sort, through many compactions of the in-order part and pops between pushes.
TEST(TimerQueueTest, MatchesAStableSortOfRandomTimers) {
  std::mt19937_64 rng(7);
  TimerQueue<T> q;
  std::vector<T> live;
  int64_t clock = 0;
  int next_id = 0;
  for (int round = 0; round < 20'000; ++round) {
    const int64_t at = clock + static_cast<int64_t>(rng() % 100) - (rng() % 10 == 0 ? 150 : 0);
    clock += 3;
    const T t{at, next_id++};
    if (rng() % 8 == 0) {
      q.PushOutOfOrder(t);
    } else {
      q.Push(t);
    }
    live.push_back(t);
    if (rng() % 3 != 0) {
      // The smallest `at`; of equal ones, the queue may return any: check `at` and remove it.
      const T* f = q.Front();
      ASSERT_NE(f, nullptr);
      const auto min = std::min_element(live.begin(), live.end(),
                                        [](const T& a, const T& b) { return a.at < b.at; });
      ASSERT_EQ(f->at, min->at) << "round " << round;
      const int id = f->id;
      q.Pop(f);
      const auto it =
          std::find_if(live.begin(), live.end(), [&](const T& x) { return x.id == id; });
      ASSERT_NE(it, live.end());
      ASSERT_EQ(it->at, min->at);
      live.erase(it);
    }
  }
  std::vector<int64_t> rest;
  while (const T* f = q.Front()) {
    rest.push_back(f->at);
    q.Pop(f);
  }
  std::vector<int64_t> expected;
  for (const T& t : live) expected.push_back(t.at);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(rest, expected);
}

}  // namespace
}  // namespace tempest::bolts

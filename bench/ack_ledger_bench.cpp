// The acker's ledger: tuple trees per second through AckLedger (flat open addressing, two
// rotating tables) against the same XOR arithmetic on std::unordered_map, in the same run. Each
// tree: the spout's init (two edges), a bolt's ack that emits one child, then two acks; `pending`
// trees are in flight at once (a window: tree i is born as tree i - pending completes).
#include <benchmark/benchmark.h>

#include <random>
#include <unordered_map>
#include <vector>

#include "runtime/acking/ack_ledger.h"

namespace {

struct Tree {
  uint64_t root, a, b, c;
};

std::vector<Tree> MakeTrees(std::size_t n) {
  std::mt19937_64 rng(99);
  std::vector<Tree> trees(n);
  for (Tree& t : trees) t = {rng() | 1, rng(), rng(), rng()};
  return trees;
}

// The steps of tree i, split in two halves so that `pending` trees overlap.
template <typename Ledger>
void Run(benchmark::State& state, Ledger& ledger) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  const std::vector<Tree> trees = MakeTrees(1 << 16);
  const std::size_t mask = trees.size() - 1;
  std::size_t i = 0, completed = 0;
  for (auto _ : state) {
    const Tree& born = trees[i & mask];
    ledger.Init(born.root, born.a ^ born.b, 1);
    ledger.Ack(born.root, born.a ^ born.c);
    if (i >= pending) {
      const Tree& old = trees[(i - pending) & mask];
      ledger.Ack(old.root, old.b);
      completed += ledger.Ack(old.root, old.c);
    }
    ++i;
  }
  benchmark::DoNotOptimize(completed);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

struct FlatLedger {
  tempest::runtime::AckLedger ledger{1024};
  void Init(uint64_t root, uint64_t v, int task) { ledger.Init(root, v, task); }
  bool Ack(uint64_t root, uint64_t v) {
    return ledger.Ack(root, v).outcome == tempest::runtime::AckLedger::Outcome::kCompleted;
  }
};

// The bare baseline: the same arithmetic with a node-based map, no rotation.
struct MapLedger {
  struct Entry {
    uint64_t value = 0;
    int spout_task = 0;
  };
  std::unordered_map<uint64_t, Entry> map;
  void Init(uint64_t root, uint64_t v, int task) {
    Entry& e = map[root];
    e.value ^= v;
    e.spout_task = task;
  }
  bool Ack(uint64_t root, uint64_t v) {
    auto it = map.try_emplace(root).first;
    it->second.value ^= v;
    if (it->second.value != 0 || it->second.spout_task == 0) return false;
    map.erase(it);
    return true;
  }
};

void BM_AckLedger(benchmark::State& state) {
  FlatLedger ledger;
  Run(state, ledger);
}
BENCHMARK(BM_AckLedger)->Arg(1000)->Arg(50000);

void BM_UnorderedMapLedger(benchmark::State& state) {
  MapLedger ledger;
  Run(state, ledger);
}
BENCHMARK(BM_UnorderedMapLedger)->Arg(1000)->Arg(50000);

}  // namespace

BENCHMARK_MAIN();

// Micro-benchmarks of the tuple model: building the benchmark tuple [id, key, ts, payload] the
// way GeneratorSpout does, copying and moving it, and the stable hash used by fields grouping.
#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "topology/fields.h"
#include "topology/stream_schema.h"
#include "topology/tuple.h"
#include "topology/value.h"
#include "topology/value_hash.h"

namespace {

using tempest::topology::StableHash;
using tempest::topology::Value;
using tempest::topology::Values;

constexpr int64_t kKeys = 1000;
// 16 characters, as GeneratorSpout's default payload: one past libstdc++'s 15-char SSO buffer,
// so every copy of it allocates.
const std::string kPayload(16, 'x');

Values MakeTuple(int64_t id) { return Values{id, id % kKeys, id, kPayload}; }

// A braced list: each Value is built in the initializer_list
// and then copied (not moved) into the small_vector: the payload string is copied twice.
void BM_ValuesConstruct_InitList(benchmark::State& state) {
  int64_t id = 0;
  for (auto _ : state) {
    Values v{id, id % kKeys, id, kPayload};
    benchmark::DoNotOptimize(v);
    ++id;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ValuesConstruct_InitList);

// The same tuple built with emplace_back: one payload copy, no Value copies.
void BM_ValuesConstruct_Emplace(benchmark::State& state) {
  int64_t id = 0;
  for (auto _ : state) {
    Values v;
    v.emplace_back(id);
    v.emplace_back(id % kKeys);
    v.emplace_back(id);
    v.emplace_back(kPayload);
    benchmark::DoNotOptimize(v);
    ++id;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ValuesConstruct_Emplace);

// Ints only (no allocation at all): the floor of building a 4-field tuple.
void BM_ValuesConstruct_IntsOnly(benchmark::State& state) {
  int64_t id = 0;
  for (auto _ : state) {
    Values v{id, id % kKeys, id, id};
    benchmark::DoNotOptimize(v);
    ++id;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ValuesConstruct_IntsOnly);

// What an all/multi-target emit pays per extra target (Emitter copies the Values).
void BM_ValuesCopy(benchmark::State& state) {
  const Values src = MakeTuple(42);
  for (auto _ : state) {
    Values copy(src);
    benchmark::DoNotOptimize(copy);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ValuesCopy);

// Moving a 4-field tuple: the inline small_vector storage means four Value moves, not a
// pointer steal.
void BM_ValuesMove(benchmark::State& state) {
  Values a = MakeTuple(42);
  for (auto _ : state) {
    Values b(std::move(a));
    benchmark::DoNotOptimize(b);
    a = std::move(b);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ValuesMove);

// Values -> Tuple, as Outbox::Send does for every routed tuple (schema borrowed).
void BM_TupleFromValues(benchmark::State& state) {
  const tempest::topology::StreamSchema schema{
      "spout", "default",
      std::make_shared<const tempest::topology::Fields>(
          tempest::topology::Fields{"id", "key", "ts", "payload"}),
      false};
  int64_t id = 0;
  for (auto _ : state) {
    tempest::topology::Tuple t(&schema, 1, MakeTuple(id++));
    benchmark::DoNotOptimize(t);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TupleFromValues);

// A pool of distinct keys, so the hash is not folded into a constant.
template <typename Make>
std::array<Value, 1024> MakePool(Make make) {
  std::array<Value, 1024> pool;
  for (std::size_t i = 0; i < pool.size(); ++i) pool[i] = make(static_cast<int64_t>(i));
  return pool;
}

void BM_StableHash_String16(benchmark::State& state) {
  const auto pool = MakePool([](int64_t i) {
    std::string s = std::to_string(i);
    return Value(std::string(16 - s.size(), 'k') + s);
  });
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(StableHash(pool[i++ & 1023]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StableHash_String16);

// A short word, as in word count.
void BM_StableHash_StringWord(benchmark::State& state) {
  const auto pool = MakePool([](int64_t i) {
    std::string word = "w";  // (not "w" + ...: g++ 12 -O3 flags that with a bogus -Wrestrict)
    word += std::to_string(i % 100);
    return Value(std::move(word));
  });
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(StableHash(pool[i++ & 1023]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StableHash_StringWord);

void BM_StableHash_Int(benchmark::State& state) {
  const auto pool = MakePool([](int64_t i) { return Value(i * 7919); });
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(StableHash(pool[i++ & 1023]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StableHash_Int);

// Two-field keys through the Values overload, as the fields grouper calls it.
void HashTwoFields(benchmark::State& state, std::array<std::size_t, 2> indices) {
  std::array<Values, 1024> pool;
  for (std::size_t i = 0; i < pool.size(); ++i) {
    std::string s = std::to_string(i);
    pool[i] = Values{static_cast<int64_t>(i), static_cast<int64_t>(i) % kKeys,
                     static_cast<int64_t>(i), std::string(16 - s.size(), 'p') + s};
  }
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(StableHash(pool[i++ & 1023], indices));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(HashTwoFields, IntInt_id_key, std::array<std::size_t, 2>{0, 1})
    ->Name("BM_StableHash_TwoFields/int+int");
BENCHMARK_CAPTURE(HashTwoFields, IntString_key_payload, std::array<std::size_t, 2>{1, 3})
    ->Name("BM_StableHash_TwoFields/int+string16");

}  // namespace

BENCHMARK_MAIN();

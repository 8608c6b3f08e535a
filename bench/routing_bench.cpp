// Per-tuple cost of each grouping: one Grouper::Choose call on the GeneratorSpout tuple
// [id, key, ts, payload], made by runtime::MakeGrouper for the spout task of a tiny topology
// (generator spout -> null bolt with 8 tasks).
#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bolts/null_bolt.h"
#include "runtime/routing/grouper.h"
#include "spouts/generator_spout.h"
#include "topology/grouping.h"
#include "topology/task_layout.h"
#include "topology/topology_builder.h"
#include "topology/topology_context.h"

namespace {

namespace topology = tempest::topology;
namespace runtime = tempest::runtime;
using topology::GroupingType;

constexpr int kTargets = 8;
constexpr std::size_t kPool = 1024;

// The spout task's view of "spout -> sink(x8)", shared by every benchmark.
struct Fixture {
  std::shared_ptr<const topology::TopologySpec> spec;
  std::shared_ptr<const topology::TaskLayout> layout;
  std::unique_ptr<topology::TopologyContext> context;
  std::vector<int> sink_tasks;
  std::array<topology::Values, kPool> tuples;

  Fixture() {
    topology::TopologyBuilder builder("routing-bench");
    builder.SetSpout("spout", [] { return std::make_unique<tempest::spouts::GeneratorSpout>(); });
    builder
        .SetBolt(
            "sink", [] { return std::make_unique<tempest::bolts::NullBolt>(); }, kTargets)
        .ShuffleGrouping("spout");
    spec = builder.Build();
    layout = std::make_shared<const topology::TaskLayout>(*spec);
    context =
        std::make_unique<topology::TopologyContext>(spec, layout, layout->TasksOf("spout").front());
    sink_tasks = layout->TasksOf("sink");
    // Distinct keys and payloads, so hashing groupers see varied input.
    for (std::size_t i = 0; i < kPool; ++i) {
      const auto id = static_cast<int64_t>(i);
      std::string s = std::to_string(i);
      tuples[i] = topology::Values{id, id % 1000, id, std::string(16 - s.size(), 'x') + s};
    }
  }

  std::unique_ptr<runtime::Grouper> Make(const topology::GroupingSpec& grouping, int targets) {
    runtime::GrouperInput input;
    input.context = context.get();
    input.stream = topology::GlobalStreamId{"spout", topology::kDefaultStream};
    input.source_fields = &context->GetComponentOutputFields("spout");
    input.target_tasks.assign(sink_tasks.begin(), sink_tasks.begin() + targets);
    input.is_local = [](int) { return true; };
    input.seed = 0x7E3D57;
    return runtime::MakeGrouper(grouping, std::move(input));
  }
};

Fixture& GetFixture() {
  static Fixture fixture;
  return fixture;
}

void RunGrouper(benchmark::State& state, topology::GroupingSpec grouping, int targets) {
  Fixture& f = GetFixture();
  std::unique_ptr<runtime::Grouper> grouper = f.Make(grouping, targets);
  std::vector<int> out;
  out.reserve(kTargets);
  std::size_t i = 0;
  uint64_t chosen = 0;
  for (auto _ : state) {
    out.clear();
    grouper->Choose(f.tuples[i++ & (kPool - 1)], out);
    chosen += out.size();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["targets/tuple"] =
      static_cast<double>(chosen) / static_cast<double>(state.iterations());
}

topology::GroupingSpec Spec(GroupingType type, std::vector<std::string> fields = {}) {
  topology::GroupingSpec spec;
  spec.type = type;
  spec.fields = std::move(fields);
  return spec;
}

BENCHMARK_CAPTURE(RunGrouper, shuffle, Spec(GroupingType::kShuffle), kTargets);
BENCHMARK_CAPTURE(RunGrouper, fields_string, Spec(GroupingType::kFields, {"payload"}), kTargets);
BENCHMARK_CAPTURE(RunGrouper, fields_int, Spec(GroupingType::kFields, {"key"}), kTargets);
BENCHMARK_CAPTURE(RunGrouper, fields_int_string, Spec(GroupingType::kFields, {"key", "payload"}),
                  kTargets);
BENCHMARK_CAPTURE(RunGrouper, all_4tasks, Spec(GroupingType::kAll), 4);
BENCHMARK_CAPTURE(RunGrouper, all_8tasks, Spec(GroupingType::kAll), kTargets);
BENCHMARK_CAPTURE(RunGrouper, global, Spec(GroupingType::kGlobal), kTargets);
BENCHMARK_CAPTURE(RunGrouper, none, Spec(GroupingType::kNone), kTargets);
BENCHMARK_CAPTURE(RunGrouper, partial_key_string, Spec(GroupingType::kPartialKey, {"payload"}),
                  kTargets);
BENCHMARK_CAPTURE(RunGrouper, partial_key_int, Spec(GroupingType::kPartialKey, {"key"}), kTargets);
BENCHMARK_CAPTURE(RunGrouper, local_or_shuffle, Spec(GroupingType::kLocalOrShuffle), kTargets);

}  // namespace

BENCHMARK_MAIN();

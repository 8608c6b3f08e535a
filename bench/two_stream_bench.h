#pragma once

// What the two-stream join benchmarks (interval_join.cpp, symmetric_hash_join.cpp) share: the
// pre-generated rows, a spout that emits them, the heap and timing helpers, and the runtime's
// own ceiling for two spouts. Header-only, for bench/ only.
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "bench/median.h"
#include "bolts/identity_bolt.h"
#include "bolts/null_bolt.h"
#include "runtime/local_cluster.h"
#include "topology/spout.h"
#include "topology/topology_builder.h"

namespace tempest::bench {

namespace bolts = tempest::bolts;
namespace runtime = tempest::runtime;
namespace topology = tempest::topology;
using Clock = std::chrono::steady_clock;

struct Row {
  topology::Values values;  // id, key, ts, payload: as GeneratorSpout emits them
};
using Rows = std::vector<Row>;

// The heap in use: mallinfo2 uordblks + hblkhd (large blocks are mmapped and counted only there).
inline std::size_t HeapBytes() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

inline double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Emits a shared, pre-generated vector of rows once, in order, each with its index as message
// id (failed ones are replayed first, as GeneratorSpout does), then reports exhaustion. Meant for
// one task: every task would emit the whole vector.
class VectorSpout final : public topology::Spout {
 public:
  explicit VectorSpout(std::shared_ptr<const Rows> rows) : rows_(std::move(rows)) {}

  void Open(const topology::TopologyContext&, topology::SpoutOutputCollector& collector) override {
    out_ = &collector;
  }
  topology::NextResult NextTuple() override {
    std::size_t i;
    if (!replay_.empty()) {
      i = replay_.front();
      replay_.pop_front();
    } else {
      if (next_ >= rows_->size()) return topology::NextResult::kExhausted;
      i = next_++;
    }
    out_->Emit((*rows_)[i].values, static_cast<int64_t>(i));
    return topology::NextResult::kEmitted;
  }
  void Fail(const topology::Value& message_id) override {
    replay_.push_back(static_cast<std::size_t>(message_id.AsInt()));
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override {
    declarer.DeclareStream("default", {"id", "key", "ts", "payload"});
  }

 private:
  std::shared_ptr<const Rows> rows_;
  topology::SpoutOutputCollector* out_ = nullptr;
  std::size_t next_ = 0;
  std::deque<std::size_t> replay_;
};

// The runtime's own ceilings for these spouts, acking off, input rows per second: the two spouts
// straight into a NullBolt, and through an IdentityBolt (one output row per input) into one.
inline double RuntimeCeiling(const std::shared_ptr<const Rows>& left,
                             const std::shared_ptr<const Rows>& right, bool identity) {
  topology::TopologyBuilder b("bench-ceiling");
  b.Config().acker_executors = 0;
  b.SetSpout("left", [left] { return std::make_unique<VectorSpout>(left); });
  b.SetSpout("right", [right] { return std::make_unique<VectorSpout>(right); });
  const char* first = identity ? "identity" : "sink";
  if (identity) {
    b.SetBolt("identity",
              [] {
                return std::make_unique<bolts::IdentityBolt>(
                    topology::Fields{"id", "key", "ts", "payload"});
              })
        .GlobalGrouping("left")
        .GlobalGrouping("right");
    b.SetBolt("sink", [] {
       return std::make_unique<bolts::NullBolt>();
     }).GlobalGrouping("identity");
  } else {
    b.SetBolt("sink", [] { return std::make_unique<bolts::NullBolt>(); })
        .GlobalGrouping("left")
        .GlobalGrouping("right");
  }
  const auto start = Clock::now();
  const runtime::RunSummary summary = runtime::LocalCluster(b.Build()).Run();
  const double seconds = Seconds(start);
  const runtime::ComponentSummary* sink = summary.Find("sink");
  const runtime::ComponentSummary* in = summary.Find(first);
  const uint64_t n = left->size() + right->size();
  if (!summary.completed || sink == nullptr || in == nullptr || in->executed != n ||
      sink->executed != n) {
    fmt::print(stderr, "ceiling run not verified\n");
    return 0;
  }
  return static_cast<double>(n) / seconds;
}

// Both ceilings, `repeats` rounds each, their medians printed on one line.
inline void PrintRuntimeCeilings(const std::shared_ptr<const Rows>& left,
                                 const std::shared_ptr<const Rows>& right, int repeats) {
  std::vector<double> null_sink, identity;
  for (int round = 0; round < repeats; ++round) {
    null_sink.push_back(RuntimeCeiling(left, right, false));
    identity.push_back(RuntimeCeiling(left, right, true));
  }
  fmt::print(
      "runtime ceilings, no join (medians): spouts -> NullBolt {:.2f} M in/s; spouts -> "
      "IdentityBolt -> NullBolt {:.2f} M in/s\n",
      Median(null_sink) / 1e6, Median(identity) / 1e6);
}

}  // namespace tempest::bench

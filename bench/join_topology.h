#pragma once

// What the JoinBolt benchmarks (join.cpp, join_cross_process.cpp) build their topologies from:
// GeneratorSpouts "a" and "b" of n rows [id, key, ts, payload] each over `keys` keys, and the
// join of b to a on `key`, selecting "a:id, b:id", in tumbling count windows; or one
// PairedSpout "ab" that emits row i on stream "a" and then on stream "b", so that a count window
// holds exactly the rows a window of the bare join holds. Header-only, for bench/ only.
#include <cstdint>
#include <memory>
#include <string>

#include "bolts/join/join_bolt.h"
#include "spouts/generator_spout.h"
#include "topology/topology_builder.h"

namespace tempest::bench {

inline void AddJoinSpouts(topology::TopologyBuilder& b, uint64_t n, uint64_t keys) {
  spouts::GeneratorSpoutConfig gen;
  gen.count = n;
  gen.keys = keys;
  b.SetSpout("a", [gen] { return std::make_unique<spouts::GeneratorSpout>(gen); });
  b.SetSpout("b", [gen] { return std::make_unique<spouts::GeneratorSpout>(gen); });
}

// Rows [id, key, ts, payload] as GeneratorSpout makes them (key = id % keys), each id emitted on
// stream "a" and then on stream "b", untracked: one thread, so the join's input order is fixed.
class PairedSpout final : public topology::Spout {
 public:
  PairedSpout(uint64_t n, uint64_t keys) : n_(n), keys_(keys) {}
  void Open(const topology::TopologyContext&, topology::SpoutOutputCollector& out) override {
    out_ = &out;
  }
  topology::NextResult NextTuple() override {
    if (next_ == n_) return topology::NextResult::kExhausted;
    const auto id = static_cast<int64_t>(next_++);
    for (const char* stream : {"a", "b"}) {
      topology::Values values;
      values.emplace_back(id);
      values.emplace_back(id % static_cast<int64_t>(keys_));
      values.emplace_back(id);
      values.emplace_back(payload_);
      out_->Emit(stream, std::move(values));
    }
    return topology::NextResult::kEmitted;
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override {
    declarer.DeclareStream("a", {"id", "key", "ts", "payload"});
    declarer.DeclareStream("b", {"id", "key", "ts", "payload"});
  }

 private:
  uint64_t n_, keys_, next_ = 0;
  std::string payload_ = std::string(16, 'x');
  topology::SpoutOutputCollector* out_ = nullptr;
};

inline void AddPairedSpout(topology::TopologyBuilder& b, uint64_t n, uint64_t keys) {
  b.SetSpout("ab", [n, keys] { return std::make_unique<PairedSpout>(n, keys); });
}

// The join of b to a; `selector`: kSource for AddJoinSpouts, kStream for AddPairedSpout.
inline bolts::JoinBoltBuilder JoinBToA(
    uint64_t window, bolts::JoinSelector selector = bolts::JoinSelector::kSource) {
  bolts::JoinBoltBuilder join(selector, "a", "key");
  join.Join("b", "key", "a")
      .Select("a:id, b:id")
      .WithTumblingWindow(bolts::WindowSpan::Count(static_cast<int64_t>(window)));
  return join;
}

}  // namespace tempest::bench

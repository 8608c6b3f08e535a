#pragma once

// A bolt that acks its inputs in every way a bolt can, for multi-process runs (the supervisor
// registers it directly, `tempest worker` processes load it from the test plugin): across
// workers, inputs acked without children while their frame executes travel as one frame ack
// (docs/acking.md), every other kind as messages of their own.

#include <cstdint>
#include <deque>
#include <memory>
#include <set>

#include "topology/bolt.h"
#include "topology/component_registry.h"

namespace tempest::testing {

// By the input's first value (a GeneratorSpout id) modulo 4:
//   0: acked at once;
//   1: forwarded anchored (to the sink), then acked;
//   2: kept and acked while the next input executes (or at end-of-stream): a copy, later;
//   3: failed the first time (the spout replays it), acked at once the second.
class AckMixBolt : public topology::Bolt {
 public:
  void Prepare(const topology::TopologyContext&, topology::OutputCollector& out) override {
    out_ = &out;
  }
  void Execute(const topology::Tuple& input) override {
    AckKept();
    const int64_t id = input.GetInt(0);
    switch (id % 4) {
      case 0:
        out_->Ack(input);
        break;
      case 1:
        out_->Emit(input, input.GetValues());
        out_->Ack(input);
        break;
      case 2:
        kept_.push_back(input);
        break;
      case 3:
        if (failed_once_.insert(id).second) {
          out_->Fail(input);
        } else {
          out_->Ack(input);
        }
        break;
    }
  }
  void OnEndOfStream() override { AckKept(); }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override {
    declarer.Declare({"id", "key", "ts", "payload"});
  }

 private:
  void AckKept() {
    for (const topology::Tuple& t : kept_) out_->Ack(t);
    kept_.clear();
  }

  topology::OutputCollector* out_ = nullptr;
  std::deque<topology::Tuple> kept_;
  std::set<int64_t> failed_once_;
};

inline void RegisterAckMixBolt(topology::ComponentRegistry& registry) {
  registry.AddBolt<AckMixBolt>("AckMixBolt");
}

}  // namespace tempest::testing

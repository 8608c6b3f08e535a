#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "topology/spout.h"

namespace tempest::spouts {

// Config of GeneratorSpout; the names are its YAML keys (docs/contracts.md, "Values and files").
struct GeneratorSpoutConfig {
  uint64_t count = 0;              // tuples to emit, then exhausted; 0 = unbounded
  uint64_t rate_per_sec = 0;       // emit rate per task; 0 = as fast as possible
  uint64_t keys = 1000;            // key = id % keys
  uint64_t payload_bytes = 16;     // length of the payload string
  int64_t start_ts = 0;            // ts of id 0
  int64_t ts_step_ms = 1;          // ts = start_ts + id * ts_step_ms
  std::string stream = "default";  // the stream it emits on
};

// Emits [id, key, ts, payload] with id = 0, 1, 2, … (each tracked with message id = id) and
// replays failed ids before new ones. With parallelism p, task i emits the ids congruent to i
// mod p, so the union over tasks is exactly 0..count-1. The benchmark and demo source.
class GeneratorSpout final : public topology::Spout {
 public:
  explicit GeneratorSpout(GeneratorSpoutConfig config = {});
  ~GeneratorSpout() override;

  void Open(const topology::TopologyContext& context,
            topology::SpoutOutputCollector& collector) override;
  topology::NextResult NextTuple() override;
  void Fail(const topology::Value& message_id) override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

 private:
  struct State;
  GeneratorSpoutConfig config_;
  std::unique_ptr<State> state_;
};

}  // namespace tempest::spouts

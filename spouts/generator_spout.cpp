#include "spouts/generator_spout.h"

#include <chrono>
#include <deque>

#include "topology/fields.h"
#include "topology/output_collector.h"
#include "topology/row_batch.h"

namespace tempest::spouts {

using Clock = std::chrono::steady_clock;

struct GeneratorSpout::State {
  topology::SpoutOutputCollector* out = nullptr;
  topology::SpoutRowEmitter* rows = nullptr;  // the runtime's collector: the tuple is built once
  topology::RowBatch row;                     // the tuple being emitted through `rows`
  uint64_t next_id = 0;
  uint64_t stride = 1;
  uint64_t emitted = 0;  // fresh ids emitted by this task
  std::string payload;
  std::deque<int64_t> replay;
  Clock::time_point started;
  // The stream emitted on: the default one through the library's constant, which the runtime
  // resolves without comparing names.
  std::string_view stream;
};

GeneratorSpout::GeneratorSpout(GeneratorSpoutConfig config) : config_(std::move(config)) {}
GeneratorSpout::~GeneratorSpout() = default;

void GeneratorSpout::Open(const topology::TopologyContext& context,
                          topology::SpoutOutputCollector& collector) {
  state_ = std::make_unique<State>();
  state_->out = &collector;
  state_->rows = topology::SpoutRowEmitterOf(collector);
  state_->next_id = static_cast<uint64_t>(context.GetThisTaskIndex());
  state_->stride = context.GetThisComponentTasks().size();
  state_->payload.assign(config_.payload_bytes, 'x');
  state_->started = Clock::now();
  state_->stream = topology::EmitStreamName(config_.stream);
}

topology::NextResult GeneratorSpout::NextTuple() {
  State& s = *state_;
  int64_t id;
  if (!s.replay.empty()) {
    id = s.replay.front();
    s.replay.pop_front();
  } else {
    if (config_.count != 0 && s.next_id >= config_.count) return topology::NextResult::kExhausted;
    if (config_.rate_per_sec != 0) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - s.started).count();
      if (static_cast<double>(s.emitted) >= elapsed * static_cast<double>(config_.rate_per_sec)) {
        return topology::NextResult::kIdle;
      }
    }
    id = static_cast<int64_t>(s.next_id);
    s.next_id += s.stride;
    ++s.emitted;
  }
  const int64_t keys = static_cast<int64_t>(config_.keys == 0 ? 1 : config_.keys);
  const int64_t key = id % keys, ts = config_.start_ts + id * config_.ts_step_ms;
  if (s.rows != nullptr) {
    // Built once; then only its integers change (the payload is the same every time).
    if (s.row.empty()) {
      s.row.AddInt(id);
      s.row.AddInt(key);
      s.row.AddInt(ts);
      s.row.AddString(s.payload);
      s.row.EndRow(nullptr, 4, 0);
    } else {
      s.row.SetInt(0, 0, id);
      s.row.SetInt(0, 1, key);
      s.row.SetInt(0, 2, ts);
    }
    s.rows->EmitRow(s.stream, s.row[0], id);
    return topology::NextResult::kEmitted;
  }
  // Built in place: an initializer list would copy the payload string twice.
  topology::Values values;
  values.emplace_back(id);
  values.emplace_back(key);
  values.emplace_back(ts);
  values.emplace_back(s.payload);
  s.out->Emit(s.stream, std::move(values), id);
  return topology::NextResult::kEmitted;
}

void GeneratorSpout::Fail(const topology::Value& message_id) {
  state_->replay.push_back(message_id.AsInt());
}

void GeneratorSpout::DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const {
  declarer.DeclareStream(config_.stream, {"id", "key", "ts", "payload"});
}

}  // namespace tempest::spouts

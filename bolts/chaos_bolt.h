#pragma once

#include <cstdint>
#include <random>

#include "topology/bolt.h"
#include "topology/fields.h"

namespace tempest::bolts {

// Config of ChaosBolt; the names are its YAML keys (docs/contracts.md, "Values and files").
struct ChaosBoltConfig {
  double fail_fraction = 0;   // share of tuples failed (collector Fail), in [0, 1]
  double throw_fraction = 0;  // share of tuples Execute throws on (the runtime fails them), [0, 1]
  int64_t delay_ms = 0;       // sleep before handling each tuple, in milliseconds (>= 0)
  uint64_t seed = 0;          // task i draws from std::mt19937_64(seed ^ i)
  // > 0: the worker process of each task exits (a simulated crash, exit status 86) right after
  // the task has handled this many tuples — once per run: not again after its restart. Only in
  // multi-process runs (--workers 2 or more); a one-process run logs that it is ignored.
  int64_t exit_after = 0;
};

// Checks: both fractions within [0, 1] (not NaN), their sum at most 1, delay_ms and exit_after
// >= 0. Throws
// std::invalid_argument naming the key.
void ValidateChaosBoltConfig(const ChaosBoltConfig& config);

// Fault injection for testing replay and crash recovery (docs/contracts.md, "Values and files").
// For every tuple it first sleeps delay_ms, then draws u = (the next 64-bit output of
// std::mt19937_64(seed ^ task index) >> 11) * 2^-53, uniform in [0, 1): u < fail_fraction fails the
// tuple; else u < fail_fraction + throw_fraction throws std::runtime_error (the runtime fails it
// and counts an error); else it forwards the tuple unchanged, anchored, on the default stream, and
// acks it. So the outcome is deterministic given the seed and the order tuples reach the task; with
// no faults configured it is an identity bolt. `input_fields` are the input's fields, declared as
// its output. One instance per task, used by that task's thread only.
class ChaosBolt final : public topology::Bolt {
 public:
  ChaosBolt(ChaosBoltConfig config, topology::Fields input_fields);

  void Prepare(const topology::TopologyContext& context,
               topology::OutputCollector& collector) override;
  void Execute(const topology::Tuple& input) override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

 private:
  void Handle(const topology::Tuple& input);

  ChaosBoltConfig config_;
  topology::Fields fields_;
  topology::OutputCollector* out_ = nullptr;
  std::mt19937_64 rng_;
  int64_t until_exit_ = 0;  // tuples left before the process exits; 0: never
};

}  // namespace tempest::bolts

#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "topology/bolt.h"

namespace tempest::bolts {

// Storm's TestWordCounter: reads the string field `word` of every input and emits [word, count]
// (fields word, count) with the running count of that word in this task, anchored to the input,
// then acks it. An input without a string `word` throws, which fails it. One instance per task,
// used by that task's thread only.
class TestWordCounter final : public topology::Bolt {
 public:
  void Prepare(const topology::TopologyContext& context,
               topology::OutputCollector& collector) override;
  void Execute(const topology::Tuple& input) override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

 private:
  topology::OutputCollector* out_ = nullptr;
  std::unordered_map<std::string, int64_t> counts_;
};

}  // namespace tempest::bolts

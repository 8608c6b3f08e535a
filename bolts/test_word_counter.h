#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "topology/bolt.h"

namespace tempest::bolts {

// Storm's TestWordCounter: reads the string field `word` of every input and emits [word, count]
// (fields word, count) with the running count of that word in this task, anchored to the input,
// then acks it. An input without a string `word` throws, which fails it. One instance per task,
// used by that task's thread only.
class TestWordCounter final : public topology::BatchBolt {
 public:
  void Prepare(const topology::TopologyContext& context,
               topology::OutputCollector& collector) override;
  void Execute(const topology::Tuple& input) override;
  void ExecuteBatch(const topology::RowBatch& rows, topology::BatchCollector& out) override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

 private:
  // Looks words up by view: a row's word is counted without building a string first.
  struct WordHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  int64_t Count(std::string_view word);
  // The index of `word` in rows of `schema`, or -1 (cached for the last schema).
  int WordField(const topology::StreamSchema* schema);

  topology::OutputCollector* out_ = nullptr;
  std::unordered_map<std::string, int64_t, WordHash, std::equal_to<>> counts_;
  const topology::StreamSchema* word_schema_ = nullptr;
  int word_field_ = -1;
  topology::Values emit_;
};

}  // namespace tempest::bolts

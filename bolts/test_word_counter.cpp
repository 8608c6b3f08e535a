#include "bolts/test_word_counter.h"

namespace tempest::bolts {

void TestWordCounter::Prepare(const topology::TopologyContext&,
                              topology::OutputCollector& collector) {
  out_ = &collector;
}

void TestWordCounter::Execute(const topology::Tuple& input) {
  const std::string& word = input.GetStringByField("word");
  const int64_t count = ++counts_[word];
  out_->Emit(input, {word, count});
  out_->Ack(input);
}

void TestWordCounter::DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const {
  declarer.Declare({"word", "count"});
}

}  // namespace tempest::bolts

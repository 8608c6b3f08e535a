#include "bolts/test_word_counter.h"

#include <optional>

namespace tempest::bolts {

void TestWordCounter::Prepare(const topology::TopologyContext&,
                              topology::OutputCollector& collector) {
  out_ = &collector;
}

int64_t TestWordCounter::Count(std::string_view word) {
  auto it = counts_.find(word);
  if (it == counts_.end()) it = counts_.emplace(std::string(word), 0).first;
  return ++it->second;
}

void TestWordCounter::Execute(const topology::Tuple& input) {
  const std::string& word = input.GetStringByField("word");
  const int64_t count = Count(word);
  out_->Emit(input, {word, count});
  out_->Ack(input);
}

int TestWordCounter::WordField(const topology::StreamSchema* schema) {
  if (schema != word_schema_) {
    word_schema_ = schema;
    const std::optional<std::size_t> at =
        schema != nullptr ? schema->fields->Find("word") : std::nullopt;
    word_field_ = at ? static_cast<int>(*at) : -1;
  }
  return word_field_;
}

void TestWordCounter::ExecuteBatch(const topology::RowBatch& rows, topology::BatchCollector& out) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const topology::RowRef row = rows[i];
    const int field = WordField(row.schema());
    if (field < 0 || !row.IsString(static_cast<std::size_t>(field))) {
      out.ExecuteAsTuple(row);  // Execute throws for it, as for any such tuple
      continue;
    }
    const std::string_view word = row.Text(static_cast<std::size_t>(field));
    emit_.clear();
    emit_.emplace_back(word);
    emit_.emplace_back(Count(word));
    out.AckRow(row, out.EmitAnchored(topology::kDefaultStream, row, std::move(emit_)));
  }
}

void TestWordCounter::DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const {
  declarer.Declare({"word", "count"});
}

}  // namespace tempest::bolts

#include "bolts/filter_bolt.h"

#include <utility>

namespace tempest::bolts {

namespace {

BoundExpression BindFilter(const std::string& condition, const topology::Fields& fields) {
  return BoundExpression(ParseExpression(condition), {ExprInput{"input", "", {fields}}});
}

}  // namespace

FilterBolt::FilterBolt(FilterBoltConfig config, topology::Fields fields)
    : config_(std::move(config)),
      fields_(std::move(fields)),
      condition_(BindFilter(config_.condition, fields_)) {}

void FilterBolt::Prepare(const topology::TopologyContext&, topology::OutputCollector& collector) {
  out_ = &collector;
}

void FilterBolt::Execute(const topology::Tuple& input) {
  const topology::Tuple* one[] = {&input};
  if (condition_.Holds(one)) out_->Emit(config_.output_stream, input, input.GetValues());
  out_->Ack(input);
}

void FilterBolt::ExecuteBatch(const topology::RowBatch& rows, topology::BatchCollector& out) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const topology::RowRef row = rows[i];
    out.AckRow(row, condition_.Holds(row) ? out.ForwardRow(config_.output_stream, row) : 0);
  }
}

void FilterBolt::DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const {
  declarer.DeclareStream(config_.output_stream, fields_);
}

}  // namespace tempest::bolts

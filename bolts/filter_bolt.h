#pragma once

#include <string>

#include "bolts/expression/bound_expression.h"
#include "topology/bolt.h"

namespace tempest::bolts {

// Config of FilterBolt; the names are its YAML keys.
struct FilterBoltConfig {
  std::string condition;  // condition: docs/expressions.md; `field` or `input:field`
  std::string output_stream = "default";  // output_stream: where kept tuples go
};

// Keeps the tuples for which `condition` is true (SQL's WHERE: false and null drop them) and
// forwards them unchanged, anchored, on output_stream; acks every input. The condition's syntax
// is the join bolts' (docs/expressions.md), with one input: fields are named plainly or as
// `input:field`. Takes a batch at a time: the condition reads each row's cells, and a kept row
// is forwarded as it is.
class FilterBolt final : public topology::BatchBolt {
 public:
  // `fields`: the fields of every input (they must be the same). Throws ExpressionError when the
  // condition does not parse or names a field the input lacks.
  FilterBolt(FilterBoltConfig config, topology::Fields fields);

  void Prepare(const topology::TopologyContext& context,
               topology::OutputCollector& collector) override;
  void Execute(const topology::Tuple& input) override;
  void ExecuteBatch(const topology::RowBatch& rows, topology::BatchCollector& out) override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

 private:
  FilterBoltConfig config_;
  topology::Fields fields_;
  BoundExpression condition_;
  topology::OutputCollector* out_ = nullptr;
};

}  // namespace tempest::bolts

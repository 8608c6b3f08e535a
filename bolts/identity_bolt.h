#pragma once

#include "topology/bolt.h"
#include "topology/fields.h"

namespace tempest::bolts {

// Re-emits every input unchanged, anchored, on the default stream, then acks it (storm-perf's
// IdBolt). `fields` must be the input's fields, as they are declared as its output.
class IdentityBolt final : public topology::BatchBolt {
 public:
  explicit IdentityBolt(topology::Fields fields) : fields_(std::move(fields)) {}

  void Prepare(const topology::TopologyContext&, topology::OutputCollector& collector) override {
    out_ = &collector;
  }
  void Execute(const topology::Tuple& input) override {
    out_->Emit(input, input.GetValues());
    out_->Ack(input);
  }
  void ExecuteBatch(const topology::RowBatch& rows, topology::BatchCollector& out) override {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const topology::RowRef row = rows[i];
      out.AckRow(row, out.ForwardRow(topology::kDefaultStream, row));
    }
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override {
    declarer.Declare(fields_);
  }

 private:
  topology::Fields fields_;
  topology::OutputCollector* out_ = nullptr;
};

}  // namespace tempest::bolts

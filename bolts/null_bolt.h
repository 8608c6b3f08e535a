#pragma once

#include "topology/bolt.h"

namespace tempest::bolts {

// Acks and drops every tuple (Storm's DevNullBolt): the sink of the benchmark shapes.
class NullBolt final : public topology::BatchBolt {
 public:
  void Prepare(const topology::TopologyContext&, topology::OutputCollector& collector) override {
    out_ = &collector;
  }
  void Execute(const topology::Tuple& input) override { out_->Ack(input); }
  void ExecuteBatch(const topology::RowBatch& rows, topology::BatchCollector& out) override {
    out.AckRows(rows);
  }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  topology::OutputCollector* out_ = nullptr;
};

}  // namespace tempest::bolts

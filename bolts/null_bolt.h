#pragma once

#include "topology/bolt.h"

namespace tempest::bolts {

// Acks and drops every tuple (Storm's DevNullBolt): the sink of the benchmark shapes.
class NullBolt final : public topology::Bolt {
 public:
  void Prepare(const topology::TopologyContext&, topology::OutputCollector& collector) override {
    out_ = &collector;
  }
  void Execute(const topology::Tuple& input) override { out_->Ack(input); }
  void DeclareOutputFields(topology::OutputFieldsDeclarer&) const override {}

 private:
  topology::OutputCollector* out_ = nullptr;
};

}  // namespace tempest::bolts

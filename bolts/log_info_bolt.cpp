#include "bolts/log_info_bolt.h"

#include <spdlog/spdlog.h>

namespace tempest::bolts {

void LogInfoBolt::Prepare(const topology::TopologyContext&, topology::OutputCollector& collector) {
  out_ = &collector;
}

void LogInfoBolt::Execute(const topology::Tuple& input) {
  spdlog::info("{}", input.ToString());
  out_->Ack(input);
}

void LogInfoBolt::DeclareOutputFields(topology::OutputFieldsDeclarer&) const {}

}  // namespace tempest::bolts

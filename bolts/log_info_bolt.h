#pragma once

#include "topology/bolt.h"

namespace tempest::bolts {

// Storm's LogInfoBolt: logs every input at info level (spdlog, the tuple's ToString()), then acks
// it. No output streams. One instance per task, used by that task's thread only.
class LogInfoBolt final : public topology::Bolt {
 public:
  void Prepare(const topology::TopologyContext& context,
               topology::OutputCollector& collector) override;
  void Execute(const topology::Tuple& input) override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

 private:
  topology::OutputCollector* out_ = nullptr;
};

}  // namespace tempest::bolts

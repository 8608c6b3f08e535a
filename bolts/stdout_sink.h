#pragma once

#include <cstdio>
#include <string>

#include "topology/bolt.h"

namespace tempest::bolts {

// Prints each tuple it receives to stdout as one JSON object line (keys = the tuple's field
// names, as FileSink writes them), then acks it. Each line is one fwrite, which stdio locks, so
// the lines of several tasks never interleave; stdout is flushed at end-of-stream and in Cleanup.
// No output streams. One instance per task, used by that task's thread only.
class StdoutSink final : public topology::Bolt {
 public:
  // `out` is where lines go (stdout unless a test passes another stream); not owned.
  explicit StdoutSink(std::FILE* out = stdout) : file_(out) {}

  void Prepare(const topology::TopologyContext& context,
               topology::OutputCollector& collector) override;
  void Execute(const topology::Tuple& input) override;
  void OnEndOfStream() override;
  void Cleanup() override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

 private:
  std::FILE* file_;
  topology::OutputCollector* out_ = nullptr;
  std::string line_;  // reused for every tuple
};

}  // namespace tempest::bolts

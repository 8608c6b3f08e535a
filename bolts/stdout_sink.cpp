#include "bolts/stdout_sink.h"

#include "topology/json.h"

namespace tempest::bolts {

void StdoutSink::Prepare(const topology::TopologyContext&, topology::OutputCollector& collector) {
  out_ = &collector;
}

void StdoutSink::Execute(const topology::Tuple& input) {
  line_.clear();
  topology::AppendJsonObject(line_, input.GetFields(), input.GetValues());
  line_.push_back('\n');
  if (std::fwrite(line_.data(), 1, line_.size(), file_) != line_.size()) {
    out_->ReportError("cannot write to stdout");
    out_->Fail(input);
    return;
  }
  out_->Ack(input);
}

void StdoutSink::OnEndOfStream() { std::fflush(file_); }

void StdoutSink::Cleanup() { std::fflush(file_); }

void StdoutSink::DeclareOutputFields(topology::OutputFieldsDeclarer&) const {}

}  // namespace tempest::bolts

#include "bolts/windowing/window_inspect_bolt.h"

namespace tempest::bolts {

void WindowInspectBolt::Prepare(const topology::TopologyContext&,
                                topology::OutputCollector& collector) {
  out_ = &collector;
}

topology::Value WindowInspectBolt::List(TupleWindow::Tuples tuples) const {
  topology::List values;
  values.reserve(tuples.size());
  for (const topology::Tuple* t : tuples) {
    values.push_back(t->Contains(config_.field) ? t->GetValueByField(config_.field)
                                                : topology::Value());
  }
  return topology::Value(std::move(values));
}

void WindowInspectBolt::Execute(const TupleWindow& window) {
  topology::Value start;
  if (window.StartTimestamp()) start = *window.StartTimestamp();
  topology::Values row{start, window.EndTimestamp(), List(window.Get()), List(window.GetNew()),
                       List(window.GetExpired())};
  out_->Emit(config_.output_stream, std::move(row));
}

void WindowInspectBolt::DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const {
  declarer.DeclareStream(config_.output_stream,
                         topology::Fields({"start_ms", "end_ms", "events", "new", "expired"}));
}

}  // namespace tempest::bolts

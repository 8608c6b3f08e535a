#pragma once

#include <string>

#include "bolts/windowing/windowed_bolt.h"

namespace tempest::bolts {

// Config of WindowInspectBolt: the window keys (docs/contracts.md, "Join and window bolts") plus
// the field it lists.
struct WindowInspectConfig {
  WindowConfig window;
  std::string field;                      // the field whose values are listed
  std::string output_stream = "default";  // where the activations go
};

// Shows what a window holds (docs/contracts.md, "Join and window bolts"), for users debugging
// windows and for tests: one tuple per activation, on output_stream, with fields start_ms (null for
// count-length windows), end_ms, events, new, expired — the lists of `field`'s values (null where a
// tuple lacks it) of the window's tuples, its new ones and those expired since the previous
// activation, in window order. Emits are anchored to the window.
class WindowInspectBolt final : public WindowedBolt {
 public:
  explicit WindowInspectBolt(WindowInspectConfig config) : config_(std::move(config)) {}

  void Prepare(const topology::TopologyContext& context,
               topology::OutputCollector& collector) override;
  void Execute(const TupleWindow& window) override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

 private:
  topology::Value List(TupleWindow::Tuples tuples) const;

  WindowInspectConfig config_;
  topology::OutputCollector* out_ = nullptr;
};

}  // namespace tempest::bolts

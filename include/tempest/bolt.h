#pragma once

// A bolt: a processing step (part of Tempest's public API, tempest/tempest.h).

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "tempest/output_collector.h"
#include "tempest/output_fields_declarer.h"
#include "tempest/topology_context.h"
#include "tempest/tuple.h"

namespace tempest::topology {

// A processing step (Storm's IRichBolt). Each task gets its own instance, created by the
// component's factory; its methods are never called on two threads at once, and all on that
// task's thread unless topology.chaining runs the task on its upstream's thread (then Execute,
// OnEndOfStream and OnSourceEnded run there, Prepare, OnTick and Cleanup on its own thread,
// each handing over to the next with the memory synchronised). Execute must ack or
// fail each input (see BasicBolt for the automatic variant). An exception thrown by Execute fails
// that input and is logged with the component and task; the process keeps running.
class Bolt {
 public:
  virtual ~Bolt() = default;

  virtual void Prepare(const TopologyContext& context, OutputCollector& collector) = 0;
  virtual void Execute(const Tuple& input) = 0;
  // Flush hook of bounded runs: every input has sent end-of-stream. Emit what is still held
  // (windows, outer-join leftovers) here; end-of-stream is forwarded after it returns.
  virtual void OnEndOfStream() {}
  // One source component has sent end-of-stream from every task of it that feeds this task:
  // its streams deliver nothing more but replays. Comes before OnEndOfStream (which waits for
  // all sources), so event-time bolts stop waiting on that source's watermark.
  virtual void OnSourceEnded(const std::string& component) { (void)component; }
  // Timer hook (Storm's tick tuples): when TickInterval() is positive, OnTick() is called on the
  // task's thread about every interval, between Execute calls, also while no input arrives.
  // Asked once, after Prepare.
  virtual std::chrono::milliseconds TickInterval() const { return std::chrono::milliseconds(0); }
  virtual void OnTick() {}
  virtual void Cleanup() {}
  virtual void DeclareOutputFields(OutputFieldsDeclarer& declarer) const = 0;
};

// Makes one task's instance of a bolt; called once per task.
using BoltFactory = std::function<std::unique_ptr<Bolt>()>;

}  // namespace tempest::topology

namespace tempest {
using topology::Bolt;
using topology::BoltFactory;
}  // namespace tempest

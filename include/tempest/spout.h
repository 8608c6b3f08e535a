#pragma once

// A spout: a source of tuples (part of Tempest's public API, tempest/tempest.h).

#include <functional>
#include <memory>

#include "tempest/output_collector.h"
#include "tempest/output_fields_declarer.h"
#include "tempest/topology_context.h"
#include "tempest/value.h"

namespace tempest::topology {

// What one NextTuple call did.
enum class NextResult {
  kEmitted,    // emitted one or more tuples; call again at once
  kIdle,       // nothing to emit right now; the executor backs off briefly
  kExhausted,  // a bounded spout is finished: end-of-stream follows its last tuple
};

// A source of tuples (Storm's ISpout). Each task gets its own instance, created by the component's
// factory, and every method is called on that task's thread only. Construct cheaply: do real work
// in Open (the builder creates one throw-away instance to ask DeclareOutputFields).
class Spout {
 public:
  virtual ~Spout() = default;

  virtual void Open(const TopologyContext& context, SpoutOutputCollector& collector) = 0;
  // Emit zero or more tuples; must not block for long (the executor also flushes and acks here).
  virtual NextResult NextTuple() = 0;
  // The tuple tree of message_id completed / failed or timed out (replay it).
  virtual void Ack(const Value& message_id) { (void)message_id; }
  virtual void Fail(const Value& message_id) { (void)message_id; }
  virtual void Activate() {}
  virtual void Deactivate() {}
  virtual void Close() {}
  virtual void DeclareOutputFields(OutputFieldsDeclarer& declarer) const = 0;
};

// Makes one task's instance of a spout; called once per task (and once more to ask
// DeclareOutputFields).
using SpoutFactory = std::function<std::unique_ptr<Spout>()>;

}  // namespace tempest::topology

namespace tempest {
using topology::NextResult;
using topology::Spout;
using topology::SpoutFactory;
}  // namespace tempest

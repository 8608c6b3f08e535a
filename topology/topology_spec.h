#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "topology/grouping.h"
#include "topology/stream_schema.h"
#include "topology/value.h"

namespace tempest::topology {

class Spout;
class Bolt;

using SpoutFactory = std::function<std::unique_ptr<Spout>()>;
using BoltFactory = std::function<std::unique_ptr<Bolt>()>;

// The largest topology.executor.receive.buffer.size the loader accepts (4 GiB of queued tuples
// per task): a larger value is a typo, not a setting.
inline constexpr int kMaxReceiveBufferSize = 1 << 24;

// Topology-wide settings; the names mirror Storm's config keys.
struct TopologyConfig {
  int workers = 1;                // topology.workers: worker processes of a run
  int acker_executors = -1;       // topology.acker.executors: -1 = one per worker, 0 = ack at emit
  int max_spout_pending = 0;      // topology.max.spout.pending: 0 = unlimited
  int message_timeout_secs = 30;  // topology.message.timeout.secs
  // supervisor.worker.timeout.secs: a worker process silent this long is killed and restarted
  int worker_timeout_secs = 30;
  bool debug = false;  // topology.debug: log every emit
  // topology.wait.yield.micros: a task out of input yields the CPU for up to this long before
  // it sleeps (as Storm's progressive wait strategy does); 0 sleeps at once
  int wait_yield_micros = 30;
  // topology.executor.receive.buffer.size: tuples a task's inbound queue holds before its
  // producers block (and a worker's credit towards each remote task); 0 = the run's
  // LocalRunOptions::queue_capacity (16,384)
  int receive_buffer_size = 0;
  // topology.chaining: run a bolt task whose only input is one bolt task of the same process on
  // that task's thread (Flink's operator chaining; runtime/chaining.h), instead of on its own
  bool chaining = false;
  // Any other key of the topology file's `config` (users' own settings), in file order.
  std::vector<std::pair<std::string, Value>> extra;
};

enum class ComponentKind { kSpout, kBolt };

// One spout or bolt: how to create its task instances, what it emits and what it consumes.
struct ComponentSpec {
  std::string id;
  ComponentKind kind = ComponentKind::kBolt;
  std::string class_name;  // the registered className, when loaded from a topology file
  int parallelism = 1;
  SpoutFactory spout_factory;  // kSpout only
  BoltFactory bolt_factory;    // kBolt only
  // Declared output streams, in declaration order. Tuples borrow these schemas.
  std::vector<std::shared_ptr<const StreamSchema>> streams;
  std::vector<InputSpec> inputs;  // kBolt only

  const StreamSchema* FindStream(std::string_view stream) const noexcept;
  // Creates one throw-away instance with the factory and returns the streams it declares.
  // Whatever the factory or DeclareOutputFields throws propagates.
  std::vector<std::shared_ptr<const StreamSchema>> DeclareStreams() const;
};

// A whole topology, as built by TopologyBuilder (or, later, the YAML loader). Validate before
// running; once validated it is shared immutably (std::shared_ptr<const TopologySpec>).
struct TopologySpec {
  std::string name = "topology";
  TopologyConfig config;
  std::vector<ComponentSpec> components;

  const ComponentSpec* Find(std::string_view id) const noexcept;
};

// Checks everything a run relies on; throws InvalidTopologyException with a precise message.
void Validate(const TopologySpec& spec);

}  // namespace tempest::topology

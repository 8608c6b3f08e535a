#pragma once

// The public Bolt lives in tempest/bolt.h; this adds the runtime's hook for bolts that keep
// their inputs.
#include "tempest/bolt.h"
#include "topology/output_collector.h"
#include "topology/tuple.h"

namespace tempest::topology {

// A built-in bolt that keeps its inputs (a window, a join's state). The runtime calls
// ExecuteOwned instead of Execute with a tuple it owns and is done with afterwards, so the bolt
// may move from it instead of copying. Leave the tuple's ack metadata in place if the bolt may
// still fail it by throwing.
class OwningBolt : public Bolt {
 public:
  virtual void ExecuteOwned(Tuple& input) = 0;
};

// What the runtime does with an input it owns: ExecuteOwned when `bolt` keeps its inputs, else
// Execute (for tests and benchmarks that feed a bolt directly; the executor looks the kind up
// once).
inline void ExecuteOwned(Bolt& bolt, Tuple& input) {
  if (auto* owning = dynamic_cast<OwningBolt*>(&bolt)) {
    owning->ExecuteOwned(input);
  } else {
    bolt.Execute(input);
  }
}

}  // namespace tempest::topology

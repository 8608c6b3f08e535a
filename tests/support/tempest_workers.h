#pragma once

// Multi-process runs in tests: the `tempest` binary (TEMPEST_BIN, from the build) is the worker
// command, loading the same YAML file with the same --set properties as the test's own spec.

#include <string>
#include <utility>
#include <vector>

#include "bolts/builtin_bolts.h"
#include "runtime/process/process_cluster.h"
#include "spouts/builtin_spouts.h"
#include "topology/yaml_loader.h"

namespace tempest::testing {

struct YamlRun {
  std::string file;
  std::vector<std::pair<std::string, std::string>> set;

  // The spec as the test process (the supervisor) loads it, built-ins registered.
  std::shared_ptr<const topology::TopologySpec> Load() const {
    static topology::ComponentRegistry* registry = [] {
      auto* r = new topology::ComponentRegistry();
      spouts::RegisterBuiltinSpouts(*r);
      bolts::RegisterBuiltinBolts(*r);
      return r;
    }();
    topology::LoadOptions options;
    options.registry = registry;
    options.set = set;
    return topology::LoadTopology(file, options);
  }

  runtime::ProcessRunOptions Workers(int workers) const {
    runtime::ProcessRunOptions o;
    o.workers = workers;
    o.worker_command = {TEMPEST_BIN, "worker", file};
    for (const auto& [k, v] : set) {
      o.worker_command.push_back("--set");
      o.worker_command.push_back(k + "=" + v);
    }
    o.worker_command.push_back("--quiet");
    return o;
  }
};

}  // namespace tempest::testing

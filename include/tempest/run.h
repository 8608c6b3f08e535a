#pragma once

// Running a topology from a C++ program (part of Tempest's public API, tempest/tempest.h).

#include "tempest/topology_builder.h"

namespace tempest {

// Runs the topology `builder` describes to its end and returns the process's exit code: 0 when
// it drained, 1 when it failed while running, 2 when it is invalid or a flag is wrong (the
// reason printed on stderr). The flags it reads from argv, leaving the others to the program:
//   --workers N        run as N worker processes of this program (default: topology.workers)
//   --transport T      ipc (default) or tcp, between workers
//   --quiet            only errors: no live lines, no summary
//   --log-level L      trace, debug, info (default), warn, error, critical, off
//   --log-file PATH    append logs (the workers' too) to PATH instead of stderr
// With N > 1 this program is started again as each worker, with the same arguments: it must
// build the same topology from them, then call RunTopology, which runs the worker's share.
int RunTopology(int argc, char** argv, const TopologyBuilder& builder);

}  // namespace tempest

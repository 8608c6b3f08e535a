#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace tempest::runtime {

// A started worker process: its pid, the supervisor's end of its control socket, and the read
// end of its stderr when that is relayed (else -1). The descriptors are the caller's to close.
struct StartedProcess {
  pid_t pid = 0;
  int control_fd = -1;
  int output_fd = -1;
};

// Forks and execs `command` (searched in PATH) with `environment`; the child gets its end of a
// new control socket as fd 3 and, with `relay_output`, its stderr into a pipe. The child dies
// with the calling thread (PR_SET_PDEATHSIG) and never starts after its parent is gone. An exec
// that fails makes the child exit with status 127. Throws std::system_error naming what failed.
StartedProcess StartProcess(const std::vector<std::string>& command,
                            const std::vector<std::string>& environment, bool relay_output);

// The exit status of `pid` if it has ended (reaping it), else nullopt. Never blocks.
std::optional<int> ReapIfExited(pid_t pid);

// How a child ended, in words: "exited with status 3", "killed by signal 9 (SIGKILL)".
std::string ExitText(int status);

// Whether the status says the exec itself failed (StartProcess's 127).
bool ExecFailed(int status);

}  // namespace tempest::runtime

#include "runtime/process/worker_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

namespace tempest::runtime {
namespace {

constexpr int kExecFailed = 127;

void CloseAll(std::initializer_list<int> fds) {
  for (int fd : fds) {
    if (fd >= 0) ::close(fd);
  }
}

}  // namespace

StartedProcess StartProcess(const std::vector<std::string>& command,
                            const std::vector<std::string>& environment, bool relay_output) {
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  std::vector<std::string> args = command;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = environment;
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    throw std::system_error(errno, std::generic_category(), "cannot create a control socket");
  }
  int out[2] = {-1, -1};
  if (relay_output && ::pipe2(out, O_CLOEXEC) != 0) {
    const int e = errno;
    CloseAll({sv[0], sv[1]});
    throw std::system_error(e, std::generic_category(), "cannot create an output pipe");
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    CloseAll({sv[0], sv[1], out[0], out[1]});
    throw std::system_error(e, std::generic_category(), "cannot fork");
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    if (sv[1] == 3) {
      ::fcntl(3, F_SETFD, 0);
    } else {
      ::dup2(sv[1], 3);  // the copy does not have FD_CLOEXEC
    }
    if (out[1] >= 0) ::dup2(out[1], STDERR_FILENO);
    ::execvpe(argv[0], argv.data(), envp.data());
    ::_exit(kExecFailed);
  }
  CloseAll({sv[1], out[1]});
  return StartedProcess{pid, sv[0], out[0]};
}

std::optional<int> ReapIfExited(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, WNOHANG) == pid) return status;
  return std::nullopt;
}

std::string ExitText(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return fmt::format("killed by signal {} (SIG{})", sig, name != nullptr ? name : "?");
  }
  return fmt::format("ended with status {}", status);
}

bool ExecFailed(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == kExecFailed; }

}  // namespace tempest::runtime

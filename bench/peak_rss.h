#pragma once

// Peak resident memory of a run, measured in a child process of its own (a process's peak only
// grows): the benchmark re-runs itself with other arguments, and the child prints its peak.
// Header-only, for bench/ only.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace tempest::bench {

// This process's peak RSS so far, in KiB (VmHWM), or -1.
inline long PeakRssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

// Runs `self` with `args`; the number it prints (its PeakRssKib), or -1 when it failed.
inline long RunChildForPeakRss(const char* self, const std::vector<std::string>& args) {
  int out[2];
  if (::pipe(out) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    std::vector<char*> argv{const_cast<char*>(self)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(self, argv.data());
    std::_Exit(127);
  }
  ::close(out[1]);
  char buf[64] = {};
  const ssize_t got = ::read(out[0], buf, sizeof buf - 1);
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return std::strtol(buf, nullptr, 10);
}

}  // namespace tempest::bench

#pragma once

#include <spdlog/common.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

namespace tempest::launch {

// How a process logs: the level, and a file to append to instead of stderr.
struct LogSettings {
  spdlog::level::level_enum level = spdlog::level::info;
  std::string file;  // empty: stderr
  std::string pattern = "[%H:%M:%S.%e] [%l] %v";
};

// Parses a --log-level value (trace, debug, info, warn, error, critical, off). Throws
// std::invalid_argument listing the levels.
spdlog::level::level_enum ParseLogLevel(std::string_view name);

// Where a process's log lines and a run's live display go: never stdout, which carries only
// what the topology writes there. Logs go to stderr or a file; the live block (a few lines
// redrawn in place while a run goes on) goes to stderr, on a terminal only. A log line written
// while the live block shows is printed above it, so the block never erases a log line.
// Thread-safe: logging threads, the worker-output relay and the display share it.
class Console {
 public:
  // The process's console, on stderr.
  static Console& Get();
  // A console on `terminal` (stderr's role); `interactive`: it is a terminal.
  Console(std::FILE* terminal, bool interactive) noexcept
      : terminal_(terminal), log_(terminal), interactive_(interactive) {}
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;
  ~Console();

  // Makes spdlog's default logger write through this console with `settings` (the process's
  // console only: one default logger per process). Throws
  // std::runtime_error naming the file when it cannot be opened.
  void ConfigureLogging(const LogSettings& settings);
  // Writes one finished log line (e.g. relayed from a worker process); a newline is added.
  void WriteLogLine(std::string_view line);
  // Writes one line (a newline is added) to stderr, even when logs go to a file: the progress
  // lines of a run without a terminal.
  void WriteStatusLine(std::string_view line);
  // Replaces the live block with `block` (lines ending in '\n'), when stderr is a terminal.
  void ShowLive(std::string block);
  // Removes the live block from the terminal.
  void ClearLive();
  // Whether the terminal is one (a live block is worth drawing).
  bool Interactive() const noexcept { return interactive_; }

 private:
  // One line (a newline added) to `to`; above the live block when `to` is the terminal.
  void WriteLineLocked(std::FILE* to, std::string_view line);
  void EraseLiveLocked();
  void DrawLiveLocked();

  std::mutex mu_;
  std::FILE* const terminal_;
  std::FILE* log_;
  const bool interactive_;
  std::FILE* file_ = nullptr;  // owned when logs go to a file
  std::string live_;
  int live_lines_ = 0;  // lines of live_ currently on the terminal
};

}  // namespace tempest::launch

// The console: logs go above the live block, which never erases them; with a log file, logs
// leave the terminal alone.
#include "launch/console.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <stdio.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tempest::launch {
namespace {

constexpr const char* kUp = "\x1b[1A\x1b[2K";  // cursor up one line, erase it

// A terminal that records what is written to it.
class FakeTerminal {
 public:
  FakeTerminal() : file_(open_memstream(&data_, &size_)) {}
  ~FakeTerminal() {
    std::fclose(file_);
    std::free(data_);
  }
  std::FILE* file() { return file_; }
  std::string Text() {
    std::fflush(file_);
    return std::string(data_, size_);
  }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::FILE* file_;
};

TEST(ConsoleTest, ALogLineGoesAboveTheLiveBlockWhichIsRedrawnBelowIt) {
  FakeTerminal terminal;
  Console console(terminal.file(), true);
  console.ShowLive("a 1\nb 2\n");
  console.WriteLogLine("[info] worker 1 restarted");
  console.ShowLive("a 3\nb 4\n");
  console.ClearLive();
  EXPECT_EQ(terminal.Text(), std::string("a 1\nb 2\n") + kUp + kUp +
                                 "[info] worker 1 restarted\na 1\nb 2\n" + kUp + kUp +
                                 "a 3\nb 4\n" + kUp + kUp);
}

TEST(ConsoleTest, NoLiveBlockWhenNotATerminal) {
  FakeTerminal terminal;
  Console console(terminal.file(), false);
  console.ShowLive("a 1\n");
  console.WriteLogLine("line");
  console.ClearLive();
  EXPECT_EQ(terminal.Text(), "line\n");
}

TEST(ConsoleTest, LogsGoToTheLogFileAndLeaveTheLiveBlockAlone) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("console_test_" + std::to_string(::getpid()));
  std::filesystem::remove(file);
  FakeTerminal terminal;
  {
    Console console(terminal.file(), true);
    LogSettings settings;
    settings.file = file.string();
    settings.pattern = "%l %v";
    auto previous = spdlog::default_logger();
    console.ConfigureLogging(settings);
    console.ShowLive("a 1\n");
    spdlog::warn("to the file");
    spdlog::debug("below the level");
    console.WriteLogLine("relayed");
    spdlog::set_default_logger(previous);
  }
  EXPECT_EQ(terminal.Text(), "a 1\n");
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "warning to the file\nrelayed\n");
  std::filesystem::remove(file);
}

TEST(ConsoleTest, AnUnwritableLogFileIsAnErrorNamingIt) {
  FakeTerminal terminal;
  Console console(terminal.file(), false);
  LogSettings settings;
  settings.file = "/nonexistent/dir/tempest.log";
  EXPECT_THROW(
      {
        try {
          console.ConfigureLogging(settings);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(),
                       "cannot open the log file /nonexistent/dir/tempest.log: No such file or "
                       "directory");
          throw;
        }
      },
      std::runtime_error);
}

TEST(ConsoleTest, LogLevelsParseAndAnUnknownOneIsNamed) {
  EXPECT_EQ(ParseLogLevel("debug"), spdlog::level::debug);
  EXPECT_EQ(ParseLogLevel("off"), spdlog::level::off);
  try {
    ParseLogLevel("loud");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "unknown log level \"loud\" (expected trace, debug, info, warn, error, "
                 "critical or off)");
  }
}

}  // namespace
}  // namespace tempest::launch

#include "launch/console.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace tempest::launch {
namespace {

// spdlog's view of the console: formats each message and hands it over as one line.
class ConsoleSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit ConsoleSink(Console& console) : console_(console) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    std::string_view text(line.data(), line.size());
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    console_.WriteLogLine(text);
  }
  void flush_() override {}

 private:
  Console& console_;
};

}  // namespace

spdlog::level::level_enum ParseLogLevel(std::string_view name) {
  static constexpr std::pair<std::string_view, spdlog::level::level_enum> kLevels[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
      {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
      {"error", spdlog::level::err},   {"critical", spdlog::level::critical},
      {"off", spdlog::level::off}};
  for (const auto& [n, level] : kLevels) {
    if (n == name) return level;
  }
  throw std::invalid_argument("unknown log level \"" + std::string(name) +
                              "\" (expected trace, debug, info, warn, error, critical or off)");
}

Console& Console::Get() {
  // Never destroyed: threads and static destructors may still log at exit.
  static Console& console =
      *std::make_unique<Console>(stderr, ::isatty(STDERR_FILENO) == 1).release();
  return console;
}

Console::~Console() {
  if (file_ != nullptr) std::fclose(file_);
}

void Console::ConfigureLogging(const LogSettings& settings) {
  {
    std::lock_guard lock(mu_);
    if (!settings.file.empty()) {
      std::FILE* f = std::fopen(settings.file.c_str(), "a");
      if (f == nullptr) {
        throw std::runtime_error("cannot open the log file " + settings.file + ": " +
                                 std::strerror(errno));
      }
      if (file_ != nullptr) std::fclose(file_);
      file_ = f;
      log_ = f;
    }
  }
  auto logger = std::make_shared<spdlog::logger>("tempest", std::make_shared<ConsoleSink>(*this));
  logger->set_pattern(settings.pattern);
  logger->set_level(settings.level);
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(std::move(logger));
}

void Console::WriteLogLine(std::string_view line) {
  std::lock_guard lock(mu_);
  WriteLineLocked(log_, line);
}

void Console::WriteStatusLine(std::string_view line) {
  std::lock_guard lock(mu_);
  WriteLineLocked(terminal_, line);
}

void Console::WriteLineLocked(std::FILE* to, std::string_view line) {
  const bool over_live = to == terminal_ && live_lines_ > 0;
  if (over_live) EraseLiveLocked();
  std::fwrite(line.data(), 1, line.size(), to);
  std::fputc('\n', to);
  std::fflush(to);
  if (over_live) DrawLiveLocked();
}

void Console::ShowLive(std::string block) {
  std::lock_guard lock(mu_);
  if (!Interactive()) return;
  EraseLiveLocked();
  live_ = std::move(block);
  DrawLiveLocked();
}

void Console::ClearLive() {
  std::lock_guard lock(mu_);
  EraseLiveLocked();
  live_.clear();
}

void Console::EraseLiveLocked() {
  for (int i = 0; i < live_lines_; ++i) std::fputs("\x1b[1A\x1b[2K", terminal_);
  live_lines_ = 0;
}

void Console::DrawLiveLocked() {
  std::fputs(live_.c_str(), terminal_);
  std::fflush(terminal_);
  live_lines_ = static_cast<int>(std::count(live_.begin(), live_.end(), '\n'));
}

}  // namespace tempest::launch

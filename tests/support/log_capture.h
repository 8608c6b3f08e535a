#pragma once

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <string>

namespace tempest::testing {

// Makes spdlog's default logger write to a string while it lives (info level and up, one line
// per message in `pattern`), then puts the previous one back. The test must link spdlog::spdlog,
// so that it shares the library's logger registry rather than a header-only copy of its own.
class LogCapture {
 public:
  explicit LogCapture(const std::string& pattern = "%l %v") : previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>(
        "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(text_));
    logger->set_pattern(pattern);
    logger->set_level(spdlog::level::info);
    spdlog::set_default_logger(std::move(logger));
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  ~LogCapture() { spdlog::set_default_logger(previous_); }

  // What was logged so far.
  std::string Text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace tempest::testing

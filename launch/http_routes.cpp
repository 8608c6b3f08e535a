#include "launch/http_routes.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <utility>

#include "launch/prometheus_text.h"
#include "launch/rest_api.h"
#include "launch/web_page.h"

namespace tempest::launch {
namespace {

using nlohmann::json;

// Equal strings, in a time that does not depend on where they differ.
bool SameSecret(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

HttpAnswer Json(int status, json body) {
  return HttpAnswer{"application/json", body.dump(), status};
}

HttpAnswer Error(int status, std::string_view message) {
  return Json(status, {{"error", message}});
}

// The topology's own path under /api/v1/topology/, with %XX escapes as a browser sends them.
bool NamesTopology(std::string_view segment, const std::string& name) {
  return DecodedPathSegment(segment) == name;
}

}  // namespace

HttpRoutes::HttpRoutes(ServedRun run, std::string token)
    : run_(std::move(run)), token_(std::move(token)) {}

std::optional<HttpAnswer> HttpRoutes::operator()(const HttpRequest& request) {
  const std::string_view path = request.target.substr(0, request.target.find('?'));
  if (request.post) return Act(path, request.token);
  if (path == "/" || path == "/index.html") {
    return HttpAnswer{"text/html; charset=utf-8", std::string(WebPage())};
  }
  if (path == "/metrics") {
    return HttpAnswer{"text/plain; version=0.0.4; charset=utf-8",
                      PrometheusText(*run_.spec, run_.tasks(), run_.worker_status())};
  }
  RunView view{run_.spec,
               run_.tasks(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - run_.start).count(),
               run_.workers,
               run_.worker_status(),
               Status()};
  if (std::optional<std::string> body = RestAnswer(request.target, view)) {
    return HttpAnswer{"application/json", std::move(*body)};
  }
  return std::nullopt;
}

std::optional<HttpAnswer> HttpRoutes::Act(std::string_view path, std::string_view token) {
  constexpr std::string_view kTopology = "/api/v1/topology/";
  if (!path.starts_with(kTopology)) return std::nullopt;
  path.remove_prefix(kTopology.size());
  const std::size_t slash = path.find('/');
  if (slash == std::string_view::npos || !NamesTopology(path.substr(0, slash), run_.spec->name)) {
    return std::nullopt;
  }
  const std::string_view operation = path.substr(slash + 1);
  if (operation != "activate" && operation != "deactivate" && operation != "kill") {
    return std::nullopt;
  }
  if (token_.empty() || !SameSecret(token, token_)) {
    return Error(403,
                 "a valid X-Tempest-Token header is required (the token is in the address "
                 "the run printed at start, and in its run folder)");
  }
  if (killed_) return Error(409, "the topology is already being killed");
  if (operation == "kill") {
    killed_ = true;
    run_.kill();
  } else {
    active_ = operation == "activate";
    run_.set_active(active_);
  }
  return Json(
      200,
      {{"topologyOperation", operation}, {"topologyId", run_.spec->name}, {"status", "success"}});
}

const char* HttpRoutes::Status() const noexcept {
  if (killed_) return "KILLED";
  return active_ ? "ACTIVE" : "INACTIVE";
}

std::string MakeToken() {
  std::random_device random;  // the kernel's randomness (/dev/urandom or getrandom)
  std::string token;
  for (int i = 0; i < 4; ++i) token += fmt::format("{:08x}", random());
  return token;
}

std::string WriteToken(const std::string& dir, const std::string& token) {
  const std::string path = dir + "/ui-token";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const std::string line = token + "\n";
  const bool ok =
      fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  const int error = errno;
  if (fd >= 0) ::close(fd);
  if (!ok) throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(error)));
  return path;
}

}  // namespace tempest::launch

// The web UI in a real headless browser (Debian's chromium, driven over the DevTools protocol on
// a pipe): a two-worker topology's page shows its graph and moving rates; Deactivate stops the
// spouts; Kill ends the run. A screenshot of the live page is kept as a test artifact
// (TEMPEST_ARTIFACTS_DIR/web-ui.png).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../support/data_dir.h"
#include "../support/temp_dir.h"

extern char** environ;

namespace tempest {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// A child process whose listed fds are dup2'ed from ours; killed (if still running) and reaped
// when destroyed.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::vector<std::pair<int, int>>& fds) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    for (const auto& [from, to] : fds) posix_spawn_file_actions_adddup2(&actions, from, to);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
  }
  ~Child() {
    Kill();
    if (pid_ > 0) Wait();
  }
  void Kill() {
    if (pid_ > 0) ::kill(pid_, SIGKILL);
  }
  int Wait() {
    int status = 0;
    if (pid_ > 0 && ::waitpid(pid_, &status, 0) == pid_) pid_ = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = 0;
};

struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    CloseRead();
    CloseWrite();
  }
  void CloseRead() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void CloseWrite() {
    if (write >= 0) ::close(write);
    write = -1;
  }
};

// Reads from `fd` until `until` returns true on what was read, or the deadline passes.
bool ReadUntil(int fd, std::string& buffer, const std::function<bool(const std::string&)>& until,
               Clock::time_point deadline) {
  while (!until(buffer)) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[65536];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0) return until(buffer);
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
  return true;
}

// The DevTools protocol over --remote-debugging-pipe: JSON messages ended by a NUL byte, the
// browser reads ours on its fd 3 and writes its own on its fd 4.
class DevTools {
 public:
  DevTools(int to_browser, int from_browser) : out_(to_browser), in_(from_browser) {}

  json Call(const std::string& method, json params = json::object(),
            const std::string& session = {}, std::chrono::seconds timeout = 30s) {
    const int id = ++last_id_;
    json message = {{"id", id}, {"method", method}, {"params", std::move(params)}};
    if (!session.empty()) message["sessionId"] = session;
    const std::string text = message.dump() + '\0';
    if (::write(out_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
      throw std::runtime_error("cannot write to the browser");
    }
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      const std::size_t end = buffer_.find('\0');
      if (end == std::string::npos) {
        if (!ReadUntil(
                in_, buffer_, [](const std::string& b) { return b.find('\0') != b.npos; },
                deadline)) {
          throw std::runtime_error("no answer from the browser to " + method);
        }
        continue;
      }
      json reply = json::parse(buffer_.substr(0, end));
      buffer_.erase(0, end + 1);
      if (reply.value("id", 0) != id) continue;  // an event, or an older answer
      if (reply.contains("error")) {
        throw std::runtime_error(method + ": " + reply["error"].dump());
      }
      return reply["result"];
    }
  }

 private:
  int out_, in_;
  int last_id_ = 0;
  std::string buffer_;
};

std::string Base64Decode(const std::string& in) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : in) {
    const std::size_t v = kAlphabet.find(c);
    if (v == std::string::npos) continue;  // '=' padding
    bits = (bits << 6) | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  return out;
}

std::string FindChromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    for (const char* dir : {"/usr/bin/", "/usr/local/bin/"}) {
      const std::string path = std::string(dir) + name;
      if (::access(path.c_str(), X_OK) == 0) return path;
    }
  }
  return {};
}

// In the page, waits (polling the DOM every 100 ms, up to 30 s) until `condition` (a JS
// expression) is truthy; returns its value, or null on time-out.
std::string Until(const std::string& condition) {
  return "new Promise(done => { const start = Date.now(); const check = () => { let v = null; "
         "try { v = (" +
         condition +
         "); } catch (e) {} if (v || Date.now() - start > 30000) done(v || null); else "
         "setTimeout(check, 100); }; check(); })";
}

class WebUiBrowserTest : public ::testing::Test {
 protected:
  json Eval(const std::string& expression) {
    const json r = devtools_->Call(
        "Runtime.evaluate",
        {{"expression", expression}, {"awaitPromise", true}, {"returnByValue", true}}, session_,
        60s);
    if (r.contains("exceptionDetails")) throw std::runtime_error(r["exceptionDetails"].dump());
    return r["result"].value("value", json());
  }

  std::optional<DevTools> devtools_;
  std::string session_;
};

TEST_F(WebUiBrowserTest, TheGraphLiveRatesAndDeactivateInARealBrowser) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    if (std::getenv("TEMPEST_REQUIRE_BROWSER") != nullptr) FAIL() << "chromium is not installed";
    GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
  }
  testing::TempDir dir;
  // The run: two workers, an unbounded paced spout; its log on a pipe.
  Pipe run_err;
  Child run({TEMPEST_BIN, "run", (testing::DataDir() / "cli" / "paced.yaml").string(), "--set",
             "count=0", "--progress-interval", "0", "--workers", "2"},
            {{run_err.write, 2}});
  run_err.CloseWrite();
  std::string log;
  const std::regex address(R"(web UI at (http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]{32})\n)");
  std::smatch m;
  ASSERT_TRUE(ReadUntil(
      run_err.read, log, [&](const std::string& b) { return std::regex_search(b, m, address); },
      Clock::now() + 60s))
      << log;
  const std::string url = m[1];
  // Whatever the run logs from now on is read, so that it never blocks on a full pipe.
  std::thread drain([fd = run_err.read, &log] {
    char chunk[4096];
    for (ssize_t n; (n = ::read(fd, chunk, sizeof chunk)) > 0;) log.append(chunk, n);
  });
  // A failed assertion returns early: the run is killed so that its log ends and drain returns.
  struct Joiner {
    Child& run;
    std::thread& drain;
    ~Joiner() {
      if (!drain.joinable()) return;
      run.Kill();
      drain.join();
    }
  } joiner{run, drain};

  Pipe to_browser, from_browser;
  const int devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  std::vector<std::string> argv = {chromium,
                                   "--headless",
                                   "--disable-gpu",
                                   "--disable-dev-shm-usage",
                                   "--no-first-run",
                                   "--no-default-browser-check",
                                   "--hide-scrollbars",
                                   "--remote-debugging-pipe",
                                   "--window-size=1280,900",
                                   "--user-data-dir=" + dir.File("profile")};
  if (::geteuid() == 0) argv.push_back("--no-sandbox");  // chromium refuses root otherwise
  argv.push_back("about:blank");
  Child browser(argv, {{to_browser.read, 3}, {from_browser.write, 4}, {devnull, 1}, {devnull, 2}});
  ::close(devnull);
  to_browser.CloseRead();
  from_browser.CloseWrite();
  devtools_.emplace(to_browser.write, from_browser.read);

  const json created = devtools_->Call("Target.createTarget", {{"url", "about:blank"}});
  session_ = devtools_->Call("Target.attachToTarget",
                             {{"targetId", created["targetId"]}, {"flatten", true}})["sessionId"];
  devtools_->Call("Page.enable", json::object(), session_);
  devtools_->Call("Page.navigate", {{"url", url}}, session_);

  // The graph: both components, the spout marked as one, and the stream with its grouping.
  EXPECT_EQ(Eval(Until("document.querySelectorAll('#graph .node').length == 2 && "
                       "[...document.querySelectorAll('#graph .node')].map(n => "
                       "n.dataset.id).join(',')")),
            "gen,sink");
  EXPECT_EQ(Eval("document.querySelector('#graph .node.spout').dataset.id"), "gen");
  EXPECT_EQ(Eval("[...document.querySelectorAll('#graph .edge')].map(e => e.dataset.from + '>' + "
                 "e.dataset.to + ' ' + e.querySelector('text').textContent).join(';')"),
            "gen>sink default · SHUFFLE");
  // Live rates: the spout's (about 1000/s) shows, and changes from one refresh to the next as the
  // counts grow; the workers table lists both workers.
  EXPECT_EQ(Eval(Until("/^[1-9][0-9.]*k? emitted\\/s$/.test(document.querySelector("
                       "'[data-rate=\"gen\"]').textContent)")),
            true);
  const json emitted_before = Eval(
      "document.querySelector('#components tr:nth-child(2) "
      "td:nth-child(3)').textContent");
  EXPECT_EQ(Eval(Until("document.querySelector('#components tr:nth-child(2) td:nth-child(3)')"
                       ".textContent != " +
                       emitted_before.dump())),
            true)
      << "the spout's emitted count did not move";
  EXPECT_EQ(Eval("document.querySelectorAll('#workers tr').length"), 3);
  EXPECT_EQ(Eval("document.getElementById('status').textContent"), "ACTIVE");

  // The screenshot artifact: the graph with its live rates.
  const json shot = devtools_->Call("Page.captureScreenshot", {{"format", "png"}}, session_);
  const char* artifacts = std::getenv("TEMPEST_ARTIFACTS_DIR");
  const std::filesystem::path png =
      std::filesystem::path(artifacts != nullptr ? artifacts : ".") / "web-ui.png";
  std::filesystem::create_directories(png.parent_path());
  std::ofstream(png, std::ios::binary) << Base64Decode(shot["data"]);
  EXPECT_GT(std::filesystem::file_size(png), 10000u);
  std::cout << "screenshot: " << std::filesystem::absolute(png).string() << "\n";

  // Deactivate: the page says INACTIVE and the spout's rate falls to 0 and stays there.
  Eval("document.getElementById('deactivate').click(), true");
  EXPECT_EQ(Eval(Until("document.getElementById('status').textContent == 'INACTIVE'")), true);
  EXPECT_EQ(Eval(Until("document.querySelector('[data-rate=\"gen\"]').textContent == '0 "
                       "emitted/s'")),
            true);
  const json frozen = Eval(
      "document.querySelector('#components tr:nth-child(2) "
      "td:nth-child(3)').textContent");
  // Three more refreshes (one a second): the count holds still.
  EXPECT_EQ(Eval("new Promise(done => setTimeout(() => done(document.querySelector("
                 "'#components tr:nth-child(2) td:nth-child(3)').textContent), 3000))"),
            frozen);
  EXPECT_EQ(Eval("document.getElementById('activate').disabled"), false);

  // Kill: the run drains and ends by itself, successfully; the page notices.
  Eval("document.getElementById('kill').click(), true");
  EXPECT_EQ(Eval(Until("document.getElementById('status').textContent == 'ENDED'")), true);
  EXPECT_EQ(run.Wait(), 0);
  drain.join();
  EXPECT_NE(log.find("killed from the web UI"), std::string::npos) << log;
}

}  // namespace
}  // namespace tempest

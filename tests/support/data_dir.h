#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tempest::testing {

// tests/data, as the build tells the tests.
inline std::filesystem::path DataDir() { return TEMPEST_TEST_DATA_DIR; }

// A fresh directory under /tmp, removed with the object.
class TempDir {
 public:
  TempDir() {
    std::string pattern = "/tmp/tempest-test-XXXXXX";
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  // Writes `text` to name inside the directory; returns its path.
  std::string Write(const std::string& name, const std::string& text) const {
    const auto p = path_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

inline std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace tempest::testing

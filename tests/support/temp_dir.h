#pragma once

// A private scratch folder and whole-file read/write, for tests.

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tempest::testing {

// A fresh folder under /tmp (mkdtemp), removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::string pattern = "/tmp/tempest-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(std::string_view name) const { return path_ + "/" + std::string(name); }
  // Writes `content` to `name` in the folder; returns the file's path.
  std::string Write(std::string_view name, std::string_view content) const;

 private:
  std::string path_;
};

inline void WriteFile(const std::string& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The non-empty lines of `text`, sorted: outputs whose order depends on task interleaving are
// compared as multisets.
inline std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string TempDir::Write(std::string_view name, std::string_view content) const {
  const std::string path = File(name);
  WriteFile(path, content);
  return path;
}

}  // namespace tempest::testing

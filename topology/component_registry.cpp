#include "topology/component_registry.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

namespace tempest::topology {

std::string ComponentContext::ResolvePath(std::string_view path) const {
  const std::filesystem::path p(path);
  if (p.is_absolute() || base_dir.empty()) return std::string(path);
  return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}

namespace {

// Whether two paths name one file: the same existing file (device and inode), or the same
// canonical path for files that do not exist yet.
bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec) && !ec) return true;
  const std::filesystem::path ca = std::filesystem::weakly_canonical(a, ec);
  if (ec) return a == b;
  const std::filesystem::path cb = std::filesystem::weakly_canonical(b, ec);
  if (ec) return a == b;
  return ca == cb;
}

}  // namespace

void ComponentContext::ClaimFile(const std::string& path, bool writes) const {
  if (files == nullptr) return;
  for (const FileClaim& other : *files) {
    if (other.writes == writes || other.component == id || !SameFile(other.path, path)) continue;
    const FileClaim& writer = writes ? FileClaim{id, path, true} : other;
    const FileClaim& reader = writes ? other : FileClaim{id, path, false};
    throw std::invalid_argument(
        fmt::format("\"{}\" writes {}, which \"{}\" reads{}: the writer would truncate the "
                    "reader's input; write to another file",
                    writer.component, writer.path, reader.component,
                    writer.path == reader.path ? "" : fmt::format(" (as {})", reader.path)));
  }
  files->push_back({id, path, writes});
}

ComponentRegistry& ComponentRegistry::Global() {
  static ComponentRegistry registry;
  return registry;
}

void ComponentRegistry::AddSpout(std::string class_name, SpoutMaker maker) {
  if (spouts_.contains(class_name) || bolts_.contains(class_name)) {
    throw std::invalid_argument(fmt::format("className \"{}\" is already registered", class_name));
  }
  spouts_.emplace(std::move(class_name), std::move(maker));
}

void ComponentRegistry::AddBolt(std::string class_name, BoltMaker maker) {
  if (spouts_.contains(class_name) || bolts_.contains(class_name)) {
    throw std::invalid_argument(fmt::format("className \"{}\" is already registered", class_name));
  }
  bolts_.emplace(std::move(class_name), std::move(maker));
}

const SpoutMaker* ComponentRegistry::FindSpout(std::string_view class_name) const noexcept {
  auto it = spouts_.find(class_name);
  return it == spouts_.end() ? nullptr : &it->second;
}

const BoltMaker* ComponentRegistry::FindBolt(std::string_view class_name) const noexcept {
  auto it = bolts_.find(class_name);
  return it == bolts_.end() ? nullptr : &it->second;
}

std::vector<std::string> ComponentRegistry::SpoutNames() const {
  std::vector<std::string> out;
  for (const auto& [name, maker] : spouts_) out.push_back(name);
  return out;
}

std::vector<std::string> ComponentRegistry::BoltNames() const {
  std::vector<std::string> out;
  for (const auto& [name, maker] : bolts_) out.push_back(name);
  return out;
}

}  // namespace tempest::topology

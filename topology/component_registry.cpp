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

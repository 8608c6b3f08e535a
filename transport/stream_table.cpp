#include "transport/stream_table.h"

namespace tempest::transport {

StreamTable::StreamTable(std::shared_ptr<const topology::TopologySpec> spec)
    : spec_(std::move(spec)) {
  for (const topology::ComponentSpec& c : spec_->components) {
    for (const auto& s : c.streams) {
      index_.emplace(s.get(), static_cast<int>(schemas_.size()));
      schemas_.push_back(s.get());
    }
  }
}

int StreamTable::IndexOf(const topology::StreamSchema* schema) const noexcept {
  auto it = index_.find(schema);
  return it == index_.end() ? -1 : it->second;
}

}  // namespace tempest::transport

#include "topology/output_fields_declarer.h"

#include <fmt/format.h>

#include <stdexcept>

namespace tempest::topology {

void OutputFieldsDeclarer::DeclareStream(std::string stream, bool direct, Fields fields) {
  if (stream.empty()) {
    throw std::invalid_argument(
        fmt::format("component '{}' declares a stream with an empty id", component_));
  }
  for (const auto& s : streams_) {
    if (s->stream == stream) {
      throw std::invalid_argument(
          fmt::format("Fields for {} already set (component '{}')", stream, component_));
    }
  }
  streams_.push_back(std::make_shared<const StreamSchema>(StreamSchema{
      component_, std::move(stream), std::make_shared<const Fields>(std::move(fields)), direct}));
}

}  // namespace tempest::topology

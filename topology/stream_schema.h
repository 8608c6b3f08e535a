#pragma once

#include <memory>
#include <string>

#include "topology/fields.h"

namespace tempest::topology {

inline constexpr const char* kDefaultStream = "default";

// Identifies a stream globally: the component that declares it and the stream's id.
struct GlobalStreamId {
  std::string component;
  std::string stream = kDefaultStream;
  friend bool operator==(const GlobalStreamId&, const GlobalStreamId&) = default;
  friend auto operator<=>(const GlobalStreamId&, const GlobalStreamId&) = default;
};

// Everything tuples of one declared stream share: who emits it, its id, its fields, and whether
// it is a direct stream. Immutable; owned by the topology (or whoever builds tuples) and borrowed
// by every tuple of the stream, so it must outlive them.
struct StreamSchema {
  std::string component;
  std::string stream = kDefaultStream;
  std::shared_ptr<const Fields> fields = std::make_shared<const Fields>();
  bool direct = false;
};

}  // namespace tempest::topology

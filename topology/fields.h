#pragma once

#include <string>
#include <string_view>

// The public part lives in tempest/fields.h; this header is what the modules include.
#include "tempest/fields.h"

namespace tempest::topology {

// A configured stream name as the stream argument of an emit: kDefaultStream itself when it names
// the default stream (the runtime recognises that literal by its address, without comparing
// names), else the name. Built-in components resolve their output stream with it once.
inline std::string_view EmitStreamName(const std::string& name) noexcept {
  return name == kDefaultStream ? std::string_view(kDefaultStream) : std::string_view(name);
}

}  // namespace tempest::topology

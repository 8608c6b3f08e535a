#pragma once

// Processing time as Tempest reads it (part of Tempest's public API, tempest/tempest.h).

#include <cstdint>
#include <functional>

namespace tempest::topology {

// Milliseconds now. Windows, watermarks, idle inputs and state TTLs read processing time
// through one, so tests inject their own instead of sleeping.
using Clock = std::function<int64_t()>;

// The system clock, in milliseconds since the epoch.
int64_t SystemMillis();

}  // namespace tempest::topology

namespace tempest {
using topology::SystemMillis;  // the clock type: WindowClock (tempest/windowed_bolt.h)
}  // namespace tempest

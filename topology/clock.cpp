#include "tempest/clock.h"

#include <chrono>

namespace tempest::topology {

int64_t SystemMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace tempest::topology

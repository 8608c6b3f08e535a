#include "tempest/version.h"

namespace tempest {

const char* LibraryVersion() noexcept { return TEMPEST_VERSION; }

}  // namespace tempest

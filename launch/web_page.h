#pragma once

#include <string_view>

namespace tempest::launch {

// The web UI's one page (launch/web/index.html, compiled in): everything it shows comes from
// /api/v1/ on the same server, nothing from outside the machine.
std::string_view WebPage() noexcept;

}  // namespace tempest::launch

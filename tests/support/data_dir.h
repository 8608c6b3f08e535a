#pragma once

#include <filesystem>

#include "../support/temp_dir.h"

namespace tempest::testing {

// tests/data, as the build tells the tests.
inline std::filesystem::path DataDir() { return TEMPEST_TEST_DATA_DIR; }

}  // namespace tempest::testing

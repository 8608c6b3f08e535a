// Prints, one per line, the task a fields grouping over 7 tasks picks for each argument (as a
// string key). Run as a separate process by grouping_test to show that the choice does not
// depend on the process (no per-process seeds, no address-dependent hashing).
#include <cstdio>

#include "topology/value.h"
#include "topology/value_hash.h"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const auto h = tempest::topology::StableHash(tempest::topology::Value(argv[i]));
    std::printf("%d\n", static_cast<int>(h % 7));
  }
  return 0;
}

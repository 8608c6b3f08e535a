// libFuzzer target: the condition grammar (FilterBolt, join conditions) on any text. A bad
// expression is an ExpressionError with a position, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bolts/expression/expression.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  try {
    (void)tempest::bolts::ParseExpression(
        std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const tempest::bolts::ExpressionError&) {
  }
  return 0;
}

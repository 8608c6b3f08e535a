// MsgpackWriter against msgpack-c, the reference: every integer width on both sides of its
// boundary, and doubles, read back exactly, each in the smallest form msgpack allows.
#include "transport/msgpack_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <msgpack.hpp>
#include <vector>

namespace tempest::transport {
namespace {

// The form msgpack-c reads `bytes` as, and the value's size on the wire.
template <typename T>
T ReadBack(std::string_view bytes, std::size_t& size) {
  std::size_t offset = 0;
  const msgpack::object_handle h = msgpack::unpack(bytes.data(), bytes.size(), offset);
  size = offset;
  return h.get().as<T>();
}

// Writes each value with `write`, then checks msgpack-c reads it back in `size` bytes.
template <typename T, typename Write>
void ExpectWidths(const std::vector<std::pair<T, std::size_t>>& cases, Write write) {
  for (const auto& [v, size] : cases) {
    MsgpackWriter w;
    write(w, v);
    std::size_t read = 0;
    EXPECT_EQ(ReadBack<T>(w.view(), read), v);
    EXPECT_EQ(read, size) << v;
    EXPECT_EQ(w.size(), size) << v;
  }
}

TEST(MsgpackWriterTest, UnsignedIntegersAtEveryWidth) {
  const std::vector<std::pair<uint64_t, std::size_t>> cases = {{0, 1},
                                                               {127, 1},
                                                               {128, 2},
                                                               {255, 2},
                                                               {256, 3},
                                                               {65535, 3},
                                                               {65536, 5},
                                                               {UINT32_MAX, 5},
                                                               {1ULL << 32, 9},
                                                               {UINT64_MAX, 9},
                                                               {0x0102030405060708ULL, 9}};
  ExpectWidths(cases, [](MsgpackWriter& w, uint64_t v) { w.Uint(v); });
}

TEST(MsgpackWriterTest, SignedIntegersAtEveryWidth) {
  const std::vector<std::pair<int64_t, std::size_t>> cases = {
      {-1, 1},
      {-32, 1},
      {-33, 2},
      {-128, 2},
      {-129, 3},
      {-32768, 3},
      {-32769, 5},
      {std::numeric_limits<int32_t>::min(), 5},
      {int64_t{std::numeric_limits<int32_t>::min()} - 1, 9},
      {std::numeric_limits<int64_t>::min(), 9},
      {-0x0102030405060708LL, 9},
      {std::numeric_limits<int64_t>::max(), 9}};
  ExpectWidths(cases, [](MsgpackWriter& w, int64_t v) { w.Int(v); });
}

TEST(MsgpackWriterTest, DoublesAreFloat64) {
  for (const double d : {0.0, -0.0, 2.5, -1e300, std::numeric_limits<double>::denorm_min()}) {
    MsgpackWriter w;
    w.Double(d);
    std::size_t read = 0;
    const double back = ReadBack<double>(w.view(), read);
    EXPECT_EQ(std::signbit(back), std::signbit(d));
    EXPECT_EQ(back, d);
    EXPECT_EQ(read, 9u);
  }
}

}  // namespace
}  // namespace tempest::transport

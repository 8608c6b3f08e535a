#include "topology/value_hash.h"

#include <xxhash.h>

#include <bit>
#include <cstring>

namespace tempest::topology {
namespace {

// Each type's tag is mixed into the seed so that, e.g., the int 1 and the string "\1" differ.
constexpr uint64_t kTagMultiplier = 0x9E3779B97F4A7C15ULL;

uint64_t Seeded(uint64_t seed, ValueType type) {
  return seed ^ ((static_cast<uint64_t>(type) + 1) * kTagMultiplier);
}

uint64_t HashLittleEndian64(uint64_t bits, uint64_t seed) {
  unsigned char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<unsigned char>(bits >> (8 * i));
  return XXH64(buf, sizeof buf, seed);
}

}  // namespace

uint64_t StableHash(const Value& value, uint64_t seed) noexcept {
  const uint64_t s = Seeded(seed, value.type());
  switch (value.type()) {
    case ValueType::kNull:
      return XXH64(nullptr, 0, s);
    case ValueType::kBool:
      return HashLittleEndian64(value.AsBool() ? 1 : 0, s);
    case ValueType::kInt:
      return HashLittleEndian64(static_cast<uint64_t>(*value.IfInt()), s);
    case ValueType::kDouble: {
      double d = *value.IfDouble();
      if (d == 0.0) d = 0.0;  // -0.0 and 0.0 compare equal, so they hash equal
      return HashLittleEndian64(std::bit_cast<uint64_t>(d), s);
    }
    case ValueType::kString: {
      const std::string& str = *value.IfString();
      return XXH64(str.data(), str.size(), s);
    }
    case ValueType::kBytes: {
      const std::string& b = value.AsBytes().data;
      return XXH64(b.data(), b.size(), s);
    }
    case ValueType::kList: {
      const List& list = value.AsList();
      uint64_t h = HashLittleEndian64(list.size(), s);
      for (const Value& e : list) h = StableHash(e, h);
      return h;
    }
    case ValueType::kMap: {
      const Map& map = value.AsMap();
      uint64_t h = HashLittleEndian64(map.size(), s);
      for (const auto& [k, v] : map) h = StableHash(v, StableHash(k, h));
      return h;
    }
  }
  return s;
}

uint64_t StableHash(const Values& values, std::span<const std::size_t> indices,
                    uint64_t seed) noexcept {
  uint64_t h = seed;
  for (std::size_t i : indices) h = StableHash(values[i], h);
  return h;
}

}  // namespace tempest::topology

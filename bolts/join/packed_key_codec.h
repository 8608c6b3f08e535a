#pragma once

#include <cstdint>
#include <string>

#include "bolts/join/join_key.h"
#include "bolts/windowing/packed_values.h"

namespace tempest::bolts {

// FlatKeyTable's codec for the join states: a key's parts packed (packed_values.h) into a string,
// so a one-integer key sits in the string's inline buffer and compares without a Value.
struct PackedKeyCodec {
  using Stored = std::string;
  static bool Equals(const Stored& stored, const KeyRef& key) noexcept {
    const auto* p = reinterpret_cast<const uint8_t*>(stored.data());
    const uint8_t* end = p + stored.size();
    for (const topology::Value* v : key) {
      if (p == end || !packed::PackedEquals(p, *v)) return false;
    }
    return p == end;
  }
  static void Assign(Stored& stored, const KeyRef& key) {
    stored.clear();
    for (const topology::Value* v : key) packed::Pack(*v, stored);
  }
  static void Release(Stored& stored) noexcept { std::string().swap(stored); }
};

}  // namespace tempest::bolts

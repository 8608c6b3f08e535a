#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "bolts/join/join_key.h"
#include "bolts/windowing/packed_values.h"

namespace tempest::bolts {

// A key's parts packed (packed_values.h) in 16 bytes: up to 15 bytes inline (a key of one or
// two integers), longer keys on the heap. A join state keeps one per key, so at a row or two per
// key its size is most of what a key costs. Movable, not copyable.
class PackedKey {
 public:
  PackedKey() noexcept { bytes_[kTag] = 0; }
  ~PackedKey() { Free(); }
  PackedKey(PackedKey&& o) noexcept {
    std::memcpy(bytes_, o.bytes_, sizeof bytes_);
    o.bytes_[kTag] = 0;
  }
  PackedKey& operator=(PackedKey&& o) noexcept {
    if (this != &o) {
      Free();
      std::memcpy(bytes_, o.bytes_, sizeof bytes_);
      o.bytes_[kTag] = 0;
    }
    return *this;
  }
  PackedKey(const PackedKey&) = delete;
  PackedKey& operator=(const PackedKey&) = delete;

  struct Bytes {
    const uint8_t* begin;
    const uint8_t* end;
  };
  Bytes bytes() const noexcept {
    if (heap()) {
      const uint8_t* p = HeapData();
      return {p, p + HeapSize()};
    }
    return {bytes_, bytes_ + bytes_[kTag]};
  }
  const uint8_t* data() const noexcept { return bytes().begin; }
  std::size_t size() const noexcept {
    const Bytes b = bytes();
    return static_cast<std::size_t>(b.end - b.begin);
  }

  void Assign(const KeyRef& key) {
    std::size_t n = 0;
    for (const topology::Value* v : key) n += packed::PackedSize(*v);
    Free();
    uint8_t* p = bytes_;
    if (n > kInline) {
      if (n > UINT32_MAX) throw std::length_error("a join key packs into over 4 GiB");
      p = static_cast<uint8_t*>(std::malloc(n));
      if (p == nullptr) throw std::bad_alloc();
      const auto size = static_cast<uint32_t>(n);
      std::memcpy(bytes_, &p, sizeof p);
      std::memcpy(bytes_ + sizeof p, &size, sizeof size);
      bytes_[kTag] = kHeap;
    } else {
      bytes_[kTag] = static_cast<uint8_t>(n);
    }
    for (const topology::Value* v : key) p = packed::PackTo(p, *v);
  }

  // The same for a key of one integer (always inline: a tag and at most ten varint bytes).
  void Assign(IntKey key) noexcept {
    Free();
    uint8_t* p = bytes_;
    *p++ = packed::kInt;
    p = packed::PutVarint(p, packed::ZigZag(key.value));
    bytes_[kTag] = static_cast<uint8_t>(p - bytes_);
  }

  // Back to empty, the heap bytes freed.
  void Clear() noexcept {
    Free();
    bytes_[kTag] = 0;
  }

 private:
  static constexpr std::size_t kTag = 15;  // the inline size, or kHeap
  static constexpr std::size_t kInline = 15;
  static constexpr uint8_t kHeap = 0xff;

  bool heap() const noexcept { return bytes_[kTag] == kHeap; }
  uint8_t* HeapData() const noexcept {
    uint8_t* p;
    std::memcpy(&p, bytes_, sizeof p);
    return p;
  }
  uint32_t HeapSize() const noexcept {
    uint32_t n;
    std::memcpy(&n, bytes_ + sizeof(uint8_t*), sizeof n);
    return n;
  }
  void Free() noexcept {
    if (heap()) std::free(HeapData());
  }

  alignas(8) uint8_t bytes_[16];
};
static_assert(sizeof(PackedKey) == 16);

// FlatKeyTable's codec for the join states: keys as PackedKey, compared without a Value.
struct PackedKeyCodec {
  using Stored = PackedKey;
  static bool Equals(const Stored& stored, const KeyRef& key) noexcept {
    auto [p, end] = stored.bytes();
    for (const topology::Value* v : key) {
      if (p == end) return false;
      if (const int64_t* i = v->IfInt()) {  // the usual key part, compared inline
        if (*p++ != packed::kInt || packed::UnZigZag(packed::GetVarint(p)) != *i) return false;
      } else if (!packed::PackedEquals(p, *v)) {
        return false;
      }
    }
    return p == end;
  }
  static bool Equals(const Stored& stored, IntKey key) noexcept {
    auto [p, end] = stored.bytes();
    if (p == end || *p++ != packed::kInt) return false;
    return packed::UnZigZag(packed::GetVarint(p)) == key.value && p == end;
  }
  static void Assign(Stored& stored, const KeyRef& key) { stored.Assign(key); }
  static void Assign(Stored& stored, IntKey key) noexcept { stored.Assign(key); }
  static void Release(Stored& stored) noexcept { stored.Clear(); }
};

}  // namespace tempest::bolts

#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "topology/value.h"

namespace tempest::transport {

// Writes msgpack into a buffer it owns, growing it geometrically: each write reserves its
// worst case once and stores bytes through a pointer, instead of one append per header byte.
// Always the smallest form msgpack allows, except that doubles are always float64 (an integral
// double stays a double). The sender's hot path (FrameBuilder); msgpack-c's unpacker reads the
// result (tests/transport/frame_test.cpp checks). Single-threaded.
class MsgpackWriter {
 public:
  void Clear() noexcept { size_ = 0; }
  std::size_t size() const noexcept { return size_; }
  std::string_view view() const noexcept { return {buf_.get(), size_}; }
  char* at(std::size_t offset) noexcept { return buf_.get() + offset; }

  void Raw(const void* data, std::size_t n) {
    std::memcpy(Reserve(n), data, n);
    size_ += n;
  }
  void Nil() { Byte(0xc0); }
  void Bool(bool b) { Byte(b ? 0xc3 : 0xc2); }
  void Int(int64_t v) {
    char* p = Reserve(9);
    if (v >= 0) {
      size_ += PutUint(p, static_cast<uint64_t>(v));
    } else if (v >= -32) {
      *p = static_cast<char>(v);
      size_ += 1;
    } else if (v >= INT8_MIN) {
      size_ += Put<1>(p, 0xd0, static_cast<uint64_t>(v));
    } else if (v >= INT16_MIN) {
      size_ += Put<2>(p, 0xd1, static_cast<uint64_t>(v));
    } else if (v >= INT32_MIN) {
      size_ += Put<4>(p, 0xd2, static_cast<uint64_t>(v));
    } else {
      size_ += Put<8>(p, 0xd3, static_cast<uint64_t>(v));
    }
  }
  void Uint(uint64_t v) { size_ += PutUint(Reserve(9), v); }
  // Room for `n` bytes that the caller writes itself (fixed-size records), counted as written.
  char* Extend(std::size_t n) {
    char* p = Reserve(n);
    size_ += n;
    return p;
  }
  // `v` in the 9-byte form (uint 64) at `p`, whatever its size (any msgpack reader takes it).
  static void PutUint64(char* p, uint64_t v) noexcept { Put<8>(p, 0xcf, v); }
  void Double(double d) { size_ += Put<8>(Reserve(9), 0xcb, std::bit_cast<uint64_t>(d)); }
  void Str(std::string_view s) {
    char* p = Reserve(5 + s.size());
    std::size_t h;
    if (s.size() < 32) {
      *p = static_cast<char>(0xa0 | s.size());
      h = 1;
    } else {
      h = Length(p, s.size(), 0xd9);
    }
    std::memcpy(p + h, s.data(), s.size());
    size_ += h + s.size();
  }
  void Bin(std::string_view b) {
    char* p = Reserve(5 + b.size());
    const std::size_t h = Length(p, b.size(), 0xc4);
    std::memcpy(p + h, b.data(), b.size());
    size_ += h + b.size();
  }
  void ArrayHeader(uint32_t n) { Header(n, 0x90, 0xdc); }
  void MapHeader(uint32_t n) { Header(n, 0x80, 0xde); }
  void Value(const topology::Value& v);

 private:
  char* Reserve(std::size_t n) {
    if (size_ + n > capacity_) [[unlikely]]
      Grow(n);
    return buf_.get() + size_;
  }
  void Grow(std::size_t n) {
    capacity_ = std::max<std::size_t>(2 * capacity_, size_ + n + 1024);
    auto bigger = std::make_unique_for_overwrite<char[]>(capacity_);  // no zero fill
    if (size_ > 0) std::memcpy(bigger.get(), buf_.get(), size_);
    buf_ = std::move(bigger);
  }
  void Byte(unsigned char b) {
    *Reserve(1) = static_cast<char>(b);
    ++size_;
  }
  // The marker, then the low N bytes of v big-endian: one byte swap and one store.
  template <int N>
  static std::size_t Put(char* p, unsigned char marker, uint64_t v) {
    p[0] = static_cast<char>(marker);
    const uint64_t be = std::endian::native == std::endian::little ? __builtin_bswap64(v) : v;
    std::memcpy(p + 1, reinterpret_cast<const char*>(&be) + (8 - N), N);
    return N + 1;
  }
  static std::size_t PutUint(char* p, uint64_t v) {
    if (v < 128) {
      *p = static_cast<char>(v);
      return 1;
    }
    if (v <= UINT8_MAX) return Put<1>(p, 0xcc, v);
    if (v <= UINT16_MAX) return Put<2>(p, 0xcd, v);
    if (v <= UINT32_MAX) return Put<4>(p, 0xce, v);
    return Put<8>(p, 0xcf, v);
  }
  // str8/bin8 (marker8), 16, 32 length headers.
  static std::size_t Length(char* p, std::size_t n, unsigned char marker8) {
    if (n <= UINT8_MAX) return Put<1>(p, marker8, n);
    if (n <= UINT16_MAX) return Put<2>(p, marker8 + 1, n);
    return Put<4>(p, marker8 + 2, n);
  }
  void Header(uint32_t n, unsigned char fix, unsigned char marker16) {
    char* p = Reserve(5);
    if (n < 16) {
      *p = static_cast<char>(fix | n);
      size_ += 1;
    } else if (n <= UINT16_MAX) {
      size_ += Put<2>(p, marker16, n);
    } else {
      size_ += Put<4>(p, marker16 + 1, n);
    }
  }

  std::unique_ptr<char[]> buf_;  // capacity_ bytes; the first size_ are written
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
};

inline void MsgpackWriter::Value(const topology::Value& v) {
  switch (v.type()) {
    case topology::ValueType::kNull:
      Nil();
      return;
    case topology::ValueType::kBool:
      Bool(v.AsBool());
      return;
    case topology::ValueType::kInt:
      Int(*v.IfInt());
      return;
    case topology::ValueType::kDouble:
      Double(*v.IfDouble());
      return;
    case topology::ValueType::kString:
      Str(*v.IfString());
      return;
    case topology::ValueType::kBytes:
      Bin(v.AsBytes().data);
      return;
    case topology::ValueType::kList:
      ArrayHeader(static_cast<uint32_t>(v.AsList().size()));
      for (const topology::Value& e : v.AsList()) Value(e);
      return;
    case topology::ValueType::kMap:
      MapHeader(static_cast<uint32_t>(v.AsMap().size()));
      for (const auto& [k, e] : v.AsMap()) {
        Value(k);
        Value(e);
      }
      return;
  }
}

}  // namespace tempest::transport

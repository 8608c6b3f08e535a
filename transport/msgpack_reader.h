#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "topology/row_batch.h"
#include "topology/value.h"

namespace tempest::transport {

// A bounds-checked reader of msgpack bytes that builds Values straight from the buffer: no object
// tree, no zone, one pass. Every read returns false instead of throwing and leaves a one-line
// reason in error(); the first failure sticks. Lengths are checked against the bytes left, so a
// forged length ("an array of 4 billion elements") fails before anything is allocated. Internal
// to the transport (frame.cpp); not thread-safe.
class MsgpackReader {
 public:
  explicit MsgpackReader(std::string_view bytes) noexcept
      : p_(reinterpret_cast<const unsigned char*>(bytes.data())),
        end_(p_ + bytes.size()),
        begin_(p_) {}

  std::size_t offset() const noexcept { return static_cast<std::size_t>(p_ - begin_); }
  std::size_t remaining() const noexcept { return static_cast<std::size_t>(end_ - p_); }
  const std::string& error() const noexcept { return error_; }
  bool Fail(std::string message);

  // The fixed-size forms (what Tempest's encoder writes for small values) are inline; the rest
  // goes through the out-of-line general readers.
  bool ReadArrayHeader(uint32_t& n, const char* what) {
    if (p_ < end_ && *p_ >= 0x90 && *p_ <= 0x9f) [[likely]] {
      n = *p_++ & 0x0f;
      return n <= remaining() || Need(n);
    }
    return ReadArrayHeaderSlow(n, what);
  }
  bool ReadUint(uint64_t& out, const char* what) {
    if (p_ < end_ && *p_ <= 0x7f) [[likely]] {
      out = *p_++;
      return true;
    }
    if (remaining() >= 9 && *p_ == 0xcf) {  // uint64: the random root and edge ids
      uint64_t v = 0;
      std::memcpy(&v, p_ + 1, sizeof v);
      if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
      out = v;
      p_ += 9;
      return true;
    }
    return ReadUintSlow(out, what);
  }
  bool ReadInt(int64_t& out, const char* what) {
    if (p_ < end_ && *p_ <= 0x7f) [[likely]] {
      out = *p_++;
      return true;
    }
    if (remaining() >= 5 && *p_ == 0xce) {  // uint32: ids and timestamps
      out = (uint32_t{p_[1]} << 24) | (uint32_t{p_[2]} << 16) | (uint32_t{p_[3]} << 8) | p_[4];
      p_ += 5;
      return true;
    }
    return ReadIntSlow(out, what);
  }
  bool ReadString(std::string& out, const char* what);
  bool ReadBool(bool& out, const char* what);
  // Any value a tuple may hold (nesting up to kMaxDepth).
  bool ReadValue(topology::Value& out) {
    if (p_ < end_) [[likely]] {
      const unsigned char m = *p_;
      if (m <= 0x7f || m == 0xce || m == 0xcd) {
        int64_t i = 0;
        if (m == 0xcd && remaining() >= 3) {
          i = (uint32_t{p_[1]} << 8) | p_[2];
          p_ += 3;
        } else if (!ReadInt(i, "an integer value")) {
          return false;
        }
        out = topology::Value(i);
        return true;
      }
      if (m >= 0xa0 && m <= 0xbf) {
        const std::size_t n = m & 0x1f;
        if (n < remaining()) [[likely]] {
          out.AssignString(std::string_view(reinterpret_cast<const char*>(p_ + 1), n));
          p_ += n + 1;
          return true;
        }
      }
    }
    return ReadValue(out, 0);
  }

  // Any value a tuple may hold, added to `out`'s open row (RowBatch::AddInt and the like): a
  // string or bytes straight from the buffer, without a Value in between.
  bool ReadCell(topology::RowBatch& out) {
    if (p_ < end_) [[likely]] {
      const unsigned char m = *p_;
      if (m <= 0x7f) {
        out.AddInt(m);
        ++p_;
        return true;
      }
      if (m == 0xce && remaining() >= 5) {  // uint32: ids and timestamps
        out.AddInt((uint32_t{p_[1]} << 24) | (uint32_t{p_[2]} << 16) | (uint32_t{p_[3]} << 8) |
                   p_[4]);
        p_ += 5;
        return true;
      }
      if (m == 0xcd && remaining() >= 3) {  // uint16: keys
        out.AddInt((uint32_t{p_[1]} << 8) | p_[2]);
        p_ += 3;
        return true;
      }
      if (m == 0xcc && remaining() >= 2) {
        out.AddInt(p_[1]);
        p_ += 2;
        return true;
      }
      if (m >= 0xa0 && m <= 0xbf) {
        const std::size_t n = m & 0x1f;
        if (n < remaining()) [[likely]] {
          out.AddString(std::string_view(reinterpret_cast<const char*>(p_ + 1), n));
          p_ += n + 1;
          return true;
        }
      }
    }
    return ReadCellSlow(out);
  }

  static constexpr int kMaxDepth = 64;

 private:
  bool ReadArrayHeaderSlow(uint32_t& n, const char* what);
  bool ReadUintSlow(uint64_t& out, const char* what);
  bool ReadIntSlow(int64_t& out, const char* what);
  bool ReadValue(topology::Value& out, int depth);
  bool ReadCellSlow(topology::RowBatch& out);
  bool Need(std::size_t n);
  // Reads a big-endian unsigned integer of N bytes.
  template <int N>
  bool Be(uint64_t& out) {
    if (!Need(N)) return false;
    uint64_t v = 0;
    for (int i = 0; i < N; ++i) v = (v << 8) | p_[i];
    p_ += N;
    out = v;
    return true;
  }
  bool Length(unsigned char marker, uint32_t& n);
  bool Bytes(uint32_t n, std::string& out);

  const unsigned char* p_;
  const unsigned char* end_;
  const unsigned char* begin_;
  std::string error_;
};

}  // namespace tempest::transport

#include "transport/msgpack_reader.h"

#include <fmt/format.h>

#include <bit>
#include <limits>

namespace tempest::transport {

using topology::Value;

bool MsgpackReader::Fail(std::string message) {
  if (error_.empty()) error_ = std::move(message);
  return false;
}

bool MsgpackReader::Need(std::size_t n) {
  if (remaining() >= n) return true;
  return Fail(fmt::format("not a msgpack frame: truncated at byte {} (needs {} more, has {})",
                          offset(), n, remaining()));
}

bool MsgpackReader::Length(unsigned char marker, uint32_t& n) {
  uint64_t v = 0;
  switch (marker) {
    case 0xc4:
    case 0xd9:
      if (!Be<1>(v)) return false;
      break;  // 8-bit lengths
    case 0xc5:
    case 0xda:
    case 0xdc:
    case 0xde:
      if (!Be<2>(v)) return false;
      break;
    case 0xc6:
    case 0xdb:
    case 0xdd:
    case 0xdf:
      if (!Be<4>(v)) return false;
      break;
    default:
      return Fail(fmt::format("byte {:#04x} is not a length marker", marker));
  }
  n = static_cast<uint32_t>(v);
  // Every element or byte takes at least one byte, so a longer length cannot be honest.
  if (n > remaining()) {
    return Fail(
        fmt::format("not a msgpack frame: a length of {} at byte {} exceeds the {} bytes "
                    "left",
                    n, offset(), remaining()));
  }
  return true;
}

bool MsgpackReader::ReadArrayHeaderSlow(uint32_t& n, const char* what) {
  if (!Need(1)) return false;
  const unsigned char m = *p_;
  if (m >= 0x90 && m <= 0x9f) {
    ++p_;
    n = m & 0x0f;
    if (n > remaining()) return Need(n);
    return true;
  }
  if (m == 0xdc || m == 0xdd) {
    ++p_;
    return Length(m, n);
  }
  return Fail(fmt::format("{} is not an array", what));
}

bool MsgpackReader::ReadIntSlow(int64_t& out, const char* what) {
  if (!Need(1)) return false;
  const unsigned char m = *p_;
  if (m <= 0x7f) {
    ++p_;
    out = m;
    return true;
  }
  if (m >= 0xe0) {
    ++p_;
    out = static_cast<int8_t>(m);
    return true;
  }
  uint64_t v = 0;
  switch (m) {
    case 0xcc:
      ++p_;
      if (!Be<1>(v)) return false;
      out = static_cast<int64_t>(v);
      return true;
    case 0xcd:
      ++p_;
      if (!Be<2>(v)) return false;
      out = static_cast<int64_t>(v);
      return true;
    case 0xce:
      ++p_;
      if (!Be<4>(v)) return false;
      out = static_cast<int64_t>(v);
      return true;
    case 0xcf:
      ++p_;
      if (!Be<8>(v)) return false;
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return Fail(fmt::format("{} is not a 64-bit integer", what));
      }
      out = static_cast<int64_t>(v);
      return true;
    case 0xd0:
      ++p_;
      if (!Be<1>(v)) return false;
      out = static_cast<int8_t>(v);
      return true;
    case 0xd1:
      ++p_;
      if (!Be<2>(v)) return false;
      out = static_cast<int16_t>(v);
      return true;
    case 0xd2:
      ++p_;
      if (!Be<4>(v)) return false;
      out = static_cast<int32_t>(v);
      return true;
    case 0xd3:
      ++p_;
      if (!Be<8>(v)) return false;
      out = static_cast<int64_t>(v);
      return true;
    default:
      return Fail(fmt::format("{} is not a 64-bit integer", what));
  }
}

bool MsgpackReader::ReadUintSlow(uint64_t& out, const char* what) {
  if (!Need(1)) return false;
  const unsigned char m = *p_;
  if (m == 0xcf) {
    ++p_;
    return Be<8>(out);
  }
  int64_t v = 0;
  const bool is_int = m <= 0x7f || (m >= 0xcc && m <= 0xd3) || m >= 0xe0;
  if (!is_int || !ReadIntSlow(v, what) || v < 0) {
    return Fail(fmt::format("{} is not an unsigned integer", what));
  }
  out = static_cast<uint64_t>(v);
  return true;
}

bool MsgpackReader::Bytes(uint32_t n, std::string& out) {
  if (!Need(n)) return false;
  out.assign(reinterpret_cast<const char*>(p_), n);
  p_ += n;
  return true;
}

bool MsgpackReader::ReadString(std::string& out, const char* what) {
  if (!Need(1)) return false;
  const unsigned char m = *p_;
  uint32_t n = 0;
  if (m >= 0xa0 && m <= 0xbf) {
    ++p_;
    n = m & 0x1f;
  } else if (m == 0xd9 || m == 0xda || m == 0xdb) {
    ++p_;
    if (!Length(m, n)) return false;
  } else {
    return Fail(fmt::format("{} is not a string", what));
  }
  return Bytes(n, out);
}

bool MsgpackReader::ReadBool(bool& out, const char* what) {
  if (!Need(1)) return false;
  if (*p_ != 0xc2 && *p_ != 0xc3) return Fail(fmt::format("{} is not a boolean", what));
  out = *p_++ == 0xc3;
  return true;
}

bool MsgpackReader::ReadValue(Value& out, int depth) {
  if (!Need(1)) return false;
  const unsigned char m = *p_;
  // The common cases first: small ints and short strings.
  if (m <= 0x7f || m >= 0xe0 || (m >= 0xcc && m <= 0xd3)) {
    int64_t i = 0;
    if (!ReadIntSlow(i, "an integer value")) return false;
    out = Value(i);
    return true;
  }
  if (m >= 0xa0 && m <= 0xbf) {
    ++p_;
    const uint32_t n = m & 0x1f;
    if (!Need(n)) return false;
    out.AssignString(std::string_view(reinterpret_cast<const char*>(p_), n));
    p_ += n;
    return true;
  }
  if (depth >= kMaxDepth) {
    return Fail(fmt::format("values nest deeper than {} levels", kMaxDepth));
  }
  ++p_;
  uint32_t n = 0;
  switch (m) {
    case 0xc0:
      out = Value();
      return true;
    case 0xc2:
      out = Value(false);
      return true;
    case 0xc3:
      out = Value(true);
      return true;
    case 0xca: {
      uint64_t bits = 0;
      if (!Be<4>(bits)) return false;
      out = Value(static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits))));
      return true;
    }
    case 0xcb: {
      uint64_t bits = 0;
      if (!Be<8>(bits)) return false;
      out = Value(std::bit_cast<double>(bits));
      return true;
    }
    case 0xd9:
    case 0xda:
    case 0xdb: {
      std::string s;
      if (!Length(m, n) || !Bytes(n, s)) return false;
      out = Value(std::move(s));
      return true;
    }
    case 0xc4:
    case 0xc5:
    case 0xc6: {
      topology::Bytes b;
      if (!Length(m, n) || !Bytes(n, b.data)) return false;
      out = Value(std::move(b));
      return true;
    }
    default:
      break;
  }
  const bool fixarray = m >= 0x90 && m <= 0x9f;
  const bool fixmap = m >= 0x80 && m <= 0x8f;
  if (fixarray || fixmap) {
    n = m & 0x0f;
    if (n > remaining()) return Need(n);
  } else if (m == 0xdc || m == 0xdd || m == 0xde || m == 0xdf) {
    if (!Length(m, n)) return false;
  } else if (m == 0xc1) {
    return Fail(fmt::format("not a msgpack frame: reserved byte 0xc1 at byte {}", offset() - 1));
  } else {
    return Fail("a value is a msgpack extension type, which tuples never hold");
  }
  if (fixarray || m == 0xdc || m == 0xdd) {
    topology::List list(n);
    for (Value& e : list) {
      if (!ReadValue(e, depth + 1)) return false;
    }
    out = Value(std::move(list));
    return true;
  }
  topology::Map map(n);
  for (auto& [k, v] : map) {
    if (!ReadValue(k, depth + 1) || !ReadValue(v, depth + 1)) return false;
  }
  out = Value(std::move(map));
  return true;
}

bool MsgpackReader::ReadCellSlow(topology::RowBatch& out) {
  if (!Need(1)) return false;
  const unsigned char m = *p_;
  if (m <= 0x7f || m >= 0xe0 || (m >= 0xcc && m <= 0xd3)) {
    int64_t i = 0;
    if (!ReadIntSlow(i, "an integer value")) return false;
    out.AddInt(i);
    return true;
  }
  uint32_t n = 0;
  auto text = [&](uint32_t size, auto add) {
    if (!Need(size)) return false;
    add(std::string_view(reinterpret_cast<const char*>(p_), size));
    p_ += size;
    return true;
  };
  if (m >= 0xa0 && m <= 0xbf) {
    ++p_;
    return text(m & 0x1f, [&](std::string_view s) { out.AddString(s); });
  }
  switch (m) {
    case 0xc0:
      ++p_;
      out.AddNull();
      return true;
    case 0xc2:
    case 0xc3:
      ++p_;
      out.AddBool(m == 0xc3);
      return true;
    case 0xd9:
    case 0xda:
    case 0xdb:
      ++p_;
      return Length(m, n) && text(n, [&](std::string_view s) { out.AddString(s); });
    case 0xc4:
    case 0xc5:
    case 0xc6:
      ++p_;
      return Length(m, n) && text(n, [&](std::string_view b) { out.AddBytes(b); });
    default:
      break;
  }
  // Doubles, lists and maps (and every malformed case) as ReadValue has them.
  Value v;
  if (!ReadValue(v, 0)) return false;
  out.AddValue(v);
  return true;
}

}  // namespace tempest::transport

#include "bolts/windowing/packed_values.h"

#include <cstring>

namespace tempest::bolts::packed {

using topology::Value;

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::size_t PackedSize(const Value& v) noexcept {
  switch (v.type()) {
    case topology::ValueType::kNull:
    case topology::ValueType::kBool:
      return 1;
    case topology::ValueType::kInt:
      return 1 + VarintSize(ZigZag(*v.IfInt()));
    case topology::ValueType::kDouble:
      return 1 + sizeof(double);
    case topology::ValueType::kString:
      return 1 + VarintSize(v.IfString()->size()) + v.IfString()->size();
    case topology::ValueType::kBytes:
      return 1 + VarintSize(v.AsBytes().data.size()) + v.AsBytes().data.size();
    case topology::ValueType::kList: {
      std::size_t n = 1 + VarintSize(v.AsList().size());
      for (const Value& e : v.AsList()) n += PackedSize(e);
      return n;
    }
    case topology::ValueType::kMap: {
      std::size_t n = 1 + VarintSize(v.AsMap().size());
      for (const auto& [k, e] : v.AsMap()) n += PackedSize(k) + PackedSize(e);
      return n;
    }
  }
  return 1;
}

uint8_t* PackTo(uint8_t* p, const Value& v) noexcept {
  switch (v.type()) {
    case topology::ValueType::kNull:
      *p++ = kNull;
      return p;
    case topology::ValueType::kBool:
      *p++ = v.AsBool() ? kTrue : kFalse;
      return p;
    case topology::ValueType::kInt:
      *p++ = kInt;
      return PutVarint(p, ZigZag(*v.IfInt()));
    case topology::ValueType::kDouble:
      *p++ = kDouble;
      std::memcpy(p, v.IfDouble(), sizeof(double));
      return p + sizeof(double);
    case topology::ValueType::kString:
      return PutBytes(p, kString, *v.IfString());
    case topology::ValueType::kBytes:
      return PutBytes(p, kBytes, v.AsBytes().data);
    case topology::ValueType::kList:
      *p++ = kList;
      p = PutVarint(p, v.AsList().size());
      for (const Value& e : v.AsList()) p = PackTo(p, e);
      return p;
    case topology::ValueType::kMap:
      *p++ = kMap;
      p = PutVarint(p, v.AsMap().size());
      for (const auto& [k, e] : v.AsMap()) p = PackTo(PackTo(p, k), e);
      return p;
  }
  return p;
}

void Pack(const Value& v, std::string& out) {
  const std::size_t at = out.size();
  out.resize(at + PackedSize(v));
  PackTo(reinterpret_cast<uint8_t*>(out.data()) + at, v);
}

static std::string_view GetBytes(const uint8_t*& p) noexcept {
  const uint64_t n = GetVarint(p);
  const std::string_view s(reinterpret_cast<const char*>(p), n);
  p += n;
  return s;
}

// Rebuilds a packed value into `out`, reusing what it holds where it can (a string's buffer).
void UnpackValue(const uint8_t*& p, Value& out) {
  switch (static_cast<Tag>(*p++)) {
    case kNull:
      out = Value();
      return;
    case kFalse:
      out = Value(false);
      return;
    case kTrue:
      out = Value(true);
      return;
    case kInt:
      out = Value(UnZigZag(GetVarint(p)));
      return;
    case kDouble: {
      double d;
      std::memcpy(&d, p, sizeof d);
      p += sizeof d;
      out = Value(d);
      return;
    }
    case kString:
      out.AssignString(GetBytes(p));
      return;
    case kBytes:
      out = Value(topology::Bytes{std::string(GetBytes(p))});
      return;
    case kList: {
      topology::List list(GetVarint(p));
      for (Value& e : list) UnpackValue(p, e);
      out = Value(std::move(list));
      return;
    }
    case kMap: {
      topology::Map map(GetVarint(p));
      for (auto& [k, e] : map) {
        UnpackValue(p, k);
        UnpackValue(p, e);
      }
      out = Value(std::move(map));
      return;
    }
  }
}

void UnpackCellAny(const uint8_t*& p, topology::RowBatch& out) {
  switch (static_cast<Tag>(*p)) {
    case kNull:
      ++p;
      out.AddNull();
      return;
    case kFalse:
    case kTrue:
      out.AddBool(*p++ == kTrue);
      return;
    case kInt:
      ++p;
      out.AddInt(UnZigZag(GetVarint(p)));
      return;
    case kDouble: {
      ++p;
      double d;
      std::memcpy(&d, p, sizeof d);
      p += sizeof d;
      out.AddDouble(d);
      return;
    }
    case kString:
      ++p;
      out.AddString(GetBytes(p));
      return;
    case kBytes:
      ++p;
      out.AddBytes(GetBytes(p));
      return;
    case kList:
    case kMap:
      break;
  }
  Value v;
  UnpackValue(p, v);
  out.AddValue(v);
}

void UnpackAppendAny(const uint8_t*& p, topology::Values& out) {
  switch (static_cast<Tag>(*p)) {
    case kInt:
      ++p;
      out.emplace_back(UnZigZag(GetVarint(p)));
      return;
    case kNull:
      ++p;
      out.emplace_back();
      return;
    case kString:
      ++p;
      out.emplace_back(std::string(GetBytes(p)));
      return;
    default:
      out.emplace_back();
      UnpackValue(p, out.back());
      return;
  }
}

void SkipAny(const uint8_t*& p) noexcept {
  switch (static_cast<Tag>(*p++)) {
    case kNull:
    case kFalse:
    case kTrue:
      return;
    case kInt:
      GetVarint(p);
      return;
    case kDouble:
      p += sizeof(double);
      return;
    case kString:
    case kBytes:
      GetBytes(p);
      return;
    case kList:
      for (uint64_t n = GetVarint(p); n > 0; --n) Skip(p);
      return;
    case kMap:
      for (uint64_t n = 2 * GetVarint(p); n > 0; --n) Skip(p);
      return;
  }
}

// Whether the packed value at `p` equals `v` as Value's == has it (so 0.0 == -0.0 and NaN matches
// nothing, which comparing bytes would get wrong); on true, `p` is past it.
bool PackedEquals(const uint8_t*& p, const Value& v) noexcept {
  const auto tag = static_cast<Tag>(*p++);
  switch (v.type()) {
    case topology::ValueType::kNull:
      return tag == kNull;
    case topology::ValueType::kBool:
      return tag == (v.AsBool() ? kTrue : kFalse);
    case topology::ValueType::kInt:
      return tag == kInt && UnZigZag(GetVarint(p)) == *v.IfInt();
    case topology::ValueType::kDouble: {
      if (tag != kDouble) return false;
      double d;
      std::memcpy(&d, p, sizeof d);
      p += sizeof d;
      return d == *v.IfDouble();
    }
    case topology::ValueType::kString:
      return tag == kString && GetBytes(p) == *v.IfString();
    case topology::ValueType::kBytes:
      return tag == kBytes && GetBytes(p) == v.AsBytes().data;
    case topology::ValueType::kList: {
      if (tag != kList || GetVarint(p) != v.AsList().size()) return false;
      for (const Value& e : v.AsList()) {
        if (!PackedEquals(p, e)) return false;
      }
      return true;
    }
    case topology::ValueType::kMap: {
      if (tag != kMap || GetVarint(p) != v.AsMap().size()) return false;
      for (const auto& [k, e] : v.AsMap()) {
        if (!PackedEquals(p, k) || !PackedEquals(p, e)) return false;
      }
      return true;
    }
  }
  return false;
}

// The further steps of FindPath: string keys of nested maps.
const uint8_t* FindNested(const uint8_t* p, const std::vector<std::string>& path) noexcept {
  for (std::size_t step = 1; step < path.size(); ++step) {
    if (*p != kMap) return nullptr;
    ++p;
    const uint8_t* found = nullptr;
    for (uint64_t n = GetVarint(p); n > 0 && found == nullptr; --n) {
      const bool is_key = *p == kString;
      if (is_key) {
        ++p;
        const std::string_view k = GetBytes(p);
        if (k == path[step]) found = p;
      } else {
        Skip(p);
      }
      if (found == nullptr) Skip(p);
    }
    if (found == nullptr) return nullptr;
    p = found;
  }
  return p;
}

}  // namespace tempest::bolts::packed

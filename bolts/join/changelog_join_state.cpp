#include "bolts/join/changelog_join_state.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bolts/join/flat_key_table.h"
#include "bolts/join/packed_key_codec.h"
#include "bolts/join/timer_queue.h"
#include "bolts/windowing/packed_values.h"
#include "topology/value_hash.h"

namespace tempest::bolts {

using topology::Tuple;
using topology::Value;

std::optional<RowKind> ParseRowKind(std::string_view text) noexcept {
  if (text == "+I") return RowKind::kInsert;
  if (text == "-U") return RowKind::kUpdateBefore;
  if (text == "+U") return RowKind::kUpdateAfter;
  if (text == "-D") return RowKind::kDelete;
  return std::nullopt;
}

std::string_view RowKindName(RowKind kind) noexcept {
  switch (kind) {
    case RowKind::kInsert:
      return "+I";
    case RowKind::kUpdateBefore:
      return "-U";
    case RowKind::kUpdateAfter:
      return "+U";
    case RowKind::kDelete:
      return "-D";
  }
  return "";
}

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

int64_t SaturatingAdd(int64_t a, int64_t b) noexcept {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) {
    return b > 0 ? kNever : std::numeric_limits<int64_t>::min();
  }
  return out;
}

using namespace packed;  // NOLINT: the row codec

uint32_t LoadU32(const uint8_t* p) noexcept {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
void StoreU32(uint8_t* p, uint32_t v) noexcept { std::memcpy(p, &v, sizeof v); }
int64_t LoadI64(const uint8_t* p) noexcept {
  int64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
void StoreI64(uint8_t* p, int64_t v) noexcept { std::memcpy(p, &v, sizeof v); }

// One key's rows of one side, packed back to back in one malloc'ed block that grows by half
// (realloc, often in place), so a probe reads them in sequence and a row costs its bytes plus at
// most about a third. Sizes are 32-bit: one key's rows of one side stay below 4 GiB.
class RowBlob {
 public:
  RowBlob() = default;
  RowBlob(RowBlob&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        cap_(std::exchange(o.cap_, 0)) {}
  RowBlob& operator=(RowBlob&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
    return *this;
  }
  RowBlob(const RowBlob&) = delete;
  RowBlob& operator=(const RowBlob&) = delete;
  ~RowBlob() { std::free(data_); }

  bool empty() const noexcept { return size_ == 0; }
  uint32_t size() const noexcept { return size_; }
  uint8_t* data() noexcept { return data_; }
  const uint8_t* data() const noexcept { return data_; }

  // `n` more bytes at the end, uninitialised.
  uint8_t* Append(std::size_t n) {
    constexpr std::size_t kMax = std::numeric_limits<uint32_t>::max();
    const std::size_t need = static_cast<std::size_t>(size_) + n;
    if (need > kMax) throw std::length_error("a join key holds over 4 GiB of rows on one side");
    if (need > cap_) {
      Reallocate(std::min(kMax, std::max<std::size_t>({need, cap_ + cap_ / 2, 64})));
    }
    uint8_t* at = data_ + size_;
    size_ = static_cast<uint32_t>(need);
    return at;
  }
  // Removes bytes [at, at + n), keeping the order of the rest.
  void Erase(uint32_t at, uint32_t n) noexcept {
    std::memmove(data_ + at, data_ + at + n, size_ - at - n);
    Truncate(size_ - n);
  }
  // Empty, keeping the block for what comes next.
  void Rewind() noexcept { size_ = 0; }
  // Keeps the first `n` bytes; gives memory back when most of the block is unused.
  void Truncate(uint32_t n) noexcept {
    size_ = n;
    if (n == 0) {
      std::free(std::exchange(data_, nullptr));
      cap_ = 0;
    } else if (cap_ >= 256 && n < cap_ / 4) {
      Reallocate(2 * std::size_t{n});
    }
  }

 private:
  void Reallocate(std::size_t cap) {
    void* p = std::realloc(data_, cap);
    if (p == nullptr) throw std::bad_alloc();
    data_ = static_cast<uint8_t*>(p);
    cap_ = static_cast<uint32_t>(cap);
  }

  uint8_t* data_ = nullptr;
  uint32_t size_ = 0;
  uint32_t cap_ = 0;
};

// A key's rows (its packed values live apart, in the FlatKeyTable). `due`: when the side's entry in
// its expiry queue falls due (kNever: it has none); it stays with the slot when a key is forgotten,
// so a recycled slot never has two.
struct KeyState {
  uint32_t hash = 0;  // the low bits (FlatKeyTable)
  bool in_table = false;
  RowBlob sides[2];
  int64_t due[2] = {kNever, kNever};
  bool empty() const noexcept { return sides[0].empty() && sides[1].empty(); }
};
static_assert(sizeof(KeyState) == 56);

// When a key's rows of one side should be looked at for expiry.
struct Expiry {
  int64_t at = 0;
  uint32_t key = 0;
  bool operator<(const Expiry& o) const noexcept { return at < o.at; }
};

}  // namespace

// A stored row, in its key's blob of its side:
//   uint32 count   identical copies (1 on a unique side)
//   int32 n        associations: rows of the other side it pairs with (outer sides)
//   int64 written  last write, processing time (only on a side with a TTL)
//   varint length of the rest, then: varint origin (the side's table of schema and source task:
//   the row comes back with the stream it came on), varint field count, the packed fields.
struct ChangelogJoinState::Impl {
  ChangelogSide sides[2];
  const BoundExpression* pairs;
  ChangelogJoinSink& sink;
  std::size_t held[2] = {0, 0};
  uint32_t header[2];  // bytes before a row's length: 8, or 16 with `written`

  // Keys (FlatKeyTable): a key whose rows are all gone is kept for a while, then swept.
  FlatKeyTable<KeyState, PackedKeyCodec> keys;

  struct Origin {
    const topology::StreamSchema* schema;
    int task;
  };
  std::vector<Origin> origins[2];
  uint32_t last_origin[2] = {0, 0};
  // Per side: written rows queue in order (processing time does not go back); re-armed ones
  // go out of order.
  TimerQueue<Expiry> expiry[2];

  // Per-call scratch, kept for its capacity: a packed row, the matching rows (offsets in the
  // other side's blob), and a stored row unpacked for the sink and the condition.
  std::string packed;
  std::vector<uint32_t> matches;
  Tuple unpacked;

  Impl(ChangelogSide l, ChangelogSide r, const BoundExpression* p, ChangelogJoinSink& s)
      : sides{l, r}, pairs(p), sink(s) {
    for (int i = 0; i < 2; ++i) header[i] = sides[i].ttl_ms > 0 ? 16 : 8;
  }

  // ---- Rows.

  uint32_t OriginOf(int side, const Tuple& row) {
    std::vector<Origin>& table_of = origins[side];
    const Origin want{row.schema(), row.GetSourceTask()};
    auto same = [&](const Origin& o) { return o.schema == want.schema && o.task == want.task; };
    if (last_origin[side] < table_of.size() && same(table_of[last_origin[side]])) {
      return last_origin[side];
    }
    const auto at = static_cast<std::size_t>(std::find_if(table_of.begin(), table_of.end(), same) -
                                             table_of.begin());
    if (at == table_of.size()) table_of.push_back(want);
    last_origin[side] = static_cast<uint32_t>(at);
    return last_origin[side];
  }

  // The row's bytes after its length: origin, field count, fields.
  void PackRow(int side, const Tuple& row) {
    packed.clear();
    PutVarint(packed, OriginOf(side, row));
    PutVarint(packed, row.size());
    for (const Value& v : row.GetValues()) Pack(v, packed);
  }

  uint32_t RowSize(int side, const uint8_t* rec) const noexcept {
    const uint8_t* p = rec + header[side];
    const uint64_t n = GetVarint(p);
    return static_cast<uint32_t>(p - rec + n);
  }
  static uint32_t Count(const uint8_t* rec) noexcept { return LoadU32(rec); }
  static int32_t Associations(const uint8_t* rec) noexcept {
    return static_cast<int32_t>(LoadU32(rec + 4));
  }
  static void SetAssociations(uint8_t* rec, int64_t n) noexcept {
    StoreU32(rec + 4, static_cast<uint32_t>(static_cast<int32_t>(n)));
  }
  void SetWritten(int side, uint8_t* rec, int64_t now) noexcept {
    if (header[side] == 16) StoreI64(rec + 8, now);
  }

  // Same row as `row`, `_op` aside (a row's identity is its fields, not its stream).
  bool SameRow(int side, const uint8_t* rec, const Tuple& row) const noexcept {
    const uint8_t* p = rec + header[side];
    GetVarint(p);  // length
    GetVarint(p);  // origin
    if (GetVarint(p) != row.size()) return false;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (static_cast<int>(i) == sides[side].op_field) {
        Skip(p);
      } else if (!PackedEquals(p, row.GetValue(i))) {
        return false;
      }
    }
    return true;
  }

  // The stored row as a Tuple of its stream, in `unpacked` (valid until the next call).
  const Tuple& UnpackRow(int side, const uint8_t* rec) {
    const uint8_t* p = rec + header[side];
    GetVarint(p);
    const Origin& o = origins[side][GetVarint(p)];
    topology::TupleAccess::Rebind(unpacked, o.schema, o.task);
    topology::Values& values = topology::TupleAccess::MutableValues(unpacked);
    values.resize(GetVarint(p));
    for (Value& v : values) UnpackValue(p, v);
    return unpacked;
  }

  void AppendRow(RowBlob& own, int side, uint32_t count, int64_t n, int64_t now) {
    const std::size_t len = packed.size();
    uint8_t* rec = own.Append(header[side] + VarintSize(len) + len);
    StoreU32(rec, count);
    SetAssociations(rec, n);
    SetWritten(side, rec, now);
    std::memcpy(PutVarint(rec + header[side], len), packed.data(), len);
  }

  // ---- Expiry.

  // A key's rows of `side` were written at `now`: make sure its queue will look at them.
  void Armed(uint32_t k, int side, int64_t now) {
    const int64_t ttl = sides[side].ttl_ms;
    if (ttl <= 0) return;
    const int64_t at = SaturatingAdd(now, ttl);
    if (at >= keys[k].due[side]) return;  // an earlier look is queued: it re-arms
    keys[k].due[side] = at;
    expiry[side].Push({at, k});
  }

  // Drops a blob's rows expired at `now`; the earliest expiry of the rest (kNever: none).
  int64_t Purge(RowBlob& blob, int side, int64_t now) {
    const int64_t ttl = sides[side].ttl_ms;
    int64_t next = kNever;
    uint32_t kept = 0;
    for (uint32_t at = 0; at < blob.size();) {
      uint8_t* rec = blob.data() + at;
      const uint32_t size = RowSize(side, rec);
      const int64_t expires = SaturatingAdd(LoadI64(rec + 8), ttl);
      if (now >= expires) {
        --held[side];  // gone, silently
      } else {
        next = std::min(next, expires);
        if (kept != at) std::memmove(blob.data() + kept, rec, size);
        kept += size;
      }
      at += size;
    }
    blob.Truncate(kept);
    return next;
  }

  void Expire(int64_t now) {
    for (int side = 0; side < 2; ++side) {
      if (sides[side].ttl_ms <= 0) continue;
      TimerQueue<Expiry>& queue = expiry[side];
      for (const Expiry* due = queue.Front(); due != nullptr && due->at <= now;
           due = queue.Front()) {
        const Expiry e = *due;
        queue.Pop(due);
        KeyState& ks = keys[e.key];
        if (e.at != ks.due[side]) continue;  // superseded by an earlier entry
        ks.due[side] = kNever;
        if (ks.sides[side].empty()) continue;
        const int64_t next = Purge(ks.sides[side], side, now);
        if (next != kNever) {
          ks.due[side] = next;
          queue.PushOutOfOrder({next, e.key});
        } else if (ks.empty()) {
          keys.Emptied();
        }
      }
    }
  }

  // ---- The decision table.

  void Emit(RowKind kind, int side, const Tuple* ours, const Tuple* theirs) {
    if (side == 0) {
      sink.Emit(kind, ours, theirs);
    } else {
      sink.Emit(kind, theirs, ours);
    }
  }

  void Process(int s, RowKind kind, const KeyRef& key, const Tuple& row, int64_t now) {
    Expire(now);
    const uint32_t k = keys.FindOrInsert(key, HashKey(key));
    Apply(s, kind, k, row, now);
    if (keys[k].empty()) keys.Emptied();
  }

  void Apply(int s, RowKind kind, uint32_t k, const Tuple& row, int64_t now) {
    const int o = 1 - s;
    RowBlob& own = keys[k].sides[s];
    RowBlob& other = keys[k].sides[o];

    // The other side's rows that pair with this one, and how many copies they are.
    matches.clear();
    int64_t copies = 0;
    for (uint32_t at = 0; at < other.size(); at += RowSize(o, other.data() + at)) {
      const uint8_t* rec = other.data() + at;
      if (pairs != nullptr) {
        const Tuple& theirs = UnpackRow(o, rec);
        const Tuple* t[2] = {s == 0 ? &row : &theirs, s == 0 ? &theirs : &row};
        if (!pairs->Holds(t)) continue;
      }
      matches.push_back(at);
      copies += Count(rec);
    }
    const bool s_outer = sides[s].outer, o_outer = sides[o].outer;
    const bool inner = !s_outer && !o_outer;

    if (IsAccumulate(kind)) {
      if (matches.empty()) {
        if (s_outer) Emit(RowKind::kInsert, s, &row, nullptr);
      } else {
        if (o_outer) {
          for (const uint32_t at : matches) {
            const uint8_t* rec = other.data() + at;
            if (Associations(rec) != 0) continue;
            const Tuple& theirs = UnpackRow(o, rec);
            for (uint32_t c = Count(rec); c > 0; --c) {
              Emit(RowKind::kDelete, o, &theirs, nullptr);
            }
          }
        }
        const RowKind joined = inner ? kind : RowKind::kInsert;
        for (const uint32_t at : matches) {
          const uint8_t* rec = other.data() + at;
          const Tuple& theirs = UnpackRow(o, rec);
          for (uint32_t c = Count(rec); c > 0; --c) Emit(joined, s, &row, &theirs);
        }
        if (o_outer) {
          // A unique side holds one row per key, so it matches a row at most once: its
          // replacing rows do not count again (Flink's newest rule, FLINK-40681).
          for (const uint32_t at : matches) {
            uint8_t* rec = other.data() + at;
            if (Associations(rec) == 0 || !sides[s].unique) {
              SetAssociations(rec, Associations(rec) + 1);
              SetWritten(o, rec, now);
            }
          }
          Armed(k, o, now);
        }
      }
      Store(own, s, row, copies, now);
      Armed(k, s, now);
      return;
    }

    Remove(own, s, row);
    if (matches.empty()) {
      if (s_outer) Emit(RowKind::kDelete, s, &row, nullptr);
      return;
    }
    const RowKind joined = inner ? kind : RowKind::kDelete;
    for (const uint32_t at : matches) {
      const uint8_t* rec = other.data() + at;
      const Tuple& theirs = UnpackRow(o, rec);
      for (uint32_t c = Count(rec); c > 0; --c) Emit(joined, s, &row, &theirs);
    }
    if (o_outer) {
      for (const uint32_t at : matches) {
        uint8_t* rec = other.data() + at;
        if (Associations(rec) == 1) {
          const Tuple& theirs = UnpackRow(o, rec);
          for (uint32_t c = Count(rec); c > 0; --c) {
            Emit(RowKind::kInsert, o, &theirs, nullptr);
          }
        }
        SetAssociations(rec, Associations(rec) - 1);
        SetWritten(o, rec, now);
      }
      Armed(k, o, now);
    }
  }

  void Store(RowBlob& own, int s, const Tuple& row, int64_t n, int64_t now) {
    if (sides[s].unique) {
      PackRow(s, row);
      if (own.empty()) {
        ++held[s];
      } else {
        own.Rewind();  // replaced, not retracted
      }
      AppendRow(own, s, 1, n, now);
      return;
    }
    for (uint32_t at = 0; at < own.size(); at += RowSize(s, own.data() + at)) {
      uint8_t* rec = own.data() + at;
      if (!SameRow(s, rec, row)) continue;
      StoreU32(rec, Count(rec) + 1);
      SetAssociations(rec, n);
      SetWritten(s, rec, now);
      return;
    }
    PackRow(s, row);
    AppendRow(own, s, 1, n, now);
    ++held[s];
  }

  void Remove(RowBlob& own, int s, const Tuple& row) {
    if (sides[s].unique) {
      if (!own.empty()) {
        own.Truncate(0);
        --held[s];
      }
      return;
    }
    for (uint32_t at = 0; at < own.size(); at += RowSize(s, own.data() + at)) {
      uint8_t* rec = own.data() + at;
      if (!SameRow(s, rec, row)) continue;
      if (Count(rec) > 1) {
        StoreU32(rec, Count(rec) - 1);
      } else {
        own.Erase(at, RowSize(s, rec));
        --held[s];
      }
      return;
    }
  }
};

ChangelogJoinState::ChangelogJoinState(ChangelogSide left, ChangelogSide right,
                                       const BoundExpression* pairs, ChangelogJoinSink& sink)
    : impl_(std::make_unique<Impl>(left, right, pairs, sink)) {}

ChangelogJoinState::~ChangelogJoinState() = default;

void ChangelogJoinState::Process(JoinSide side, RowKind kind, const KeyRef& key, const Tuple& row,
                                 int64_t now) {
  impl_->Process(side == JoinSide::kLeft ? 0 : 1, kind, key, row, now);
}

void ChangelogJoinState::Expire(int64_t now) { impl_->Expire(now); }

std::size_t ChangelogJoinState::keys() const noexcept { return impl_->keys.live(); }

std::size_t ChangelogJoinState::rows(JoinSide side) const noexcept {
  return impl_->held[side == JoinSide::kLeft ? 0 : 1];
}

}  // namespace tempest::bolts

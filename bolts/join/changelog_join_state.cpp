#include "bolts/join/changelog_join_state.h"

#include <unordered_map>
#include <vector>

namespace tempest::bolts {

using topology::Tuple;

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

// One stored row: `count` identical copies (one on a unique side), each matched by `n` rows of
// the other side (outer sides only).
struct Stored {
  Tuple row;
  uint32_t count = 1;
  int64_t n = 0;
  int64_t written = 0;
};

struct KeyEntry {
  std::vector<Stored> sides[2];
};

struct KeyHash {
  std::size_t operator()(const topology::Values& key) const noexcept {
    uint64_t h = 0;
    for (const topology::Value& v : key) h = topology::StableHash(v, h);
    return static_cast<std::size_t>(h);
  }
};

// Same row, `_op` aside.
bool SameRow(const Tuple& a, const Tuple& b, int op_field) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (static_cast<int>(i) == op_field) continue;
    if (!(a.GetValue(i) == b.GetValue(i))) return false;
  }
  return true;
}

}  // namespace

struct ChangelogJoinState::Impl {
  ChangelogSide sides[2];
  const BoundExpression* pairs;
  ChangelogJoinSink& sink;
  std::unordered_map<topology::Values, KeyEntry, KeyHash> keys;
  std::size_t held[2] = {0, 0};
  // Per-call scratch, kept for its capacity: the lookup key and the matching rows.
  topology::Values key_scratch;
  std::vector<std::size_t> matches;

  Impl(ChangelogSide l, ChangelogSide r, const BoundExpression* p, ChangelogJoinSink& s)
      : sides{l, r}, pairs(p), sink(s) {}

  void Purge(std::vector<Stored>& rows, int side, int64_t now) {
    const int64_t ttl = sides[side].ttl_ms;
    if (ttl <= 0) return;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (now >= rows[i].written + ttl) continue;  // expired: gone, silently
      if (kept != i) rows[kept] = std::move(rows[i]);
      ++kept;
    }
    held[side] -= rows.size() - kept;
    rows.resize(kept);
  }

  void Emit(RowKind kind, int side, const Tuple* ours, const Tuple* theirs) {
    if (side == 0) {
      sink.Emit(kind, ours, theirs);
    } else {
      sink.Emit(kind, theirs, ours);
    }
  }

  void Process(int s, RowKind kind, const KeyRef& key, const Tuple& row, int64_t now) {
    const int o = 1 - s;
    key_scratch.clear();
    for (const topology::Value* v : key) key_scratch.push_back(*v);
    auto it = keys.find(key_scratch);
    if (it == keys.end()) it = keys.emplace(key_scratch, KeyEntry()).first;
    Apply(s, o, kind, it->second, row, now);
    // A key with nothing left is forgotten, so retracted keys do not pile up.
    if (it->second.sides[0].empty() && it->second.sides[1].empty()) keys.erase(it);
  }

  void Apply(int s, int o, RowKind kind, KeyEntry& entry, const Tuple& row, int64_t now) {
    Purge(entry.sides[0], 0, now);
    Purge(entry.sides[1], 1, now);
    std::vector<Stored>& own = entry.sides[s];
    std::vector<Stored>& other = entry.sides[o];

    // The other side's rows that pair with this one, and how many copies they are.
    matches.clear();
    int64_t copies = 0;
    for (std::size_t i = 0; i < other.size(); ++i) {
      if (pairs != nullptr) {
        const Tuple* t[2] = {s == 0 ? &row : &other[i].row, s == 0 ? &other[i].row : &row};
        if (!pairs->Holds(t)) continue;
      }
      matches.push_back(i);
      copies += other[i].count;
    }
    const bool s_outer = sides[s].outer, o_outer = sides[o].outer;
    const bool inner = !s_outer && !o_outer;

    if (IsAccumulate(kind)) {
      if (matches.empty()) {
        if (s_outer) Emit(RowKind::kInsert, s, &row, nullptr);
      } else {
        if (o_outer) {
          for (const std::size_t i : matches) {
            if (other[i].n != 0) continue;
            for (uint32_t c = 0; c < other[i].count; ++c) {
              Emit(RowKind::kDelete, o, &other[i].row, nullptr);
            }
          }
        }
        const RowKind joined = inner ? kind : RowKind::kInsert;
        for (const std::size_t i : matches) {
          for (uint32_t c = 0; c < other[i].count; ++c) Emit(joined, s, &row, &other[i].row);
        }
        if (o_outer) {
          // A unique side holds one row per key, so it matches a row at most once: its
          // replacing rows do not count again (Flink's newest rule, FLINK-40681).
          for (const std::size_t i : matches) {
            if (other[i].n == 0 || !sides[s].unique) {
              ++other[i].n;
              other[i].written = now;
            }
          }
        }
      }
      Store(own, s, row, copies, now);
      return;
    }

    Remove(own, s, row);
    if (matches.empty()) {
      if (s_outer) Emit(RowKind::kDelete, s, &row, nullptr);
      return;
    }
    const RowKind joined = inner ? kind : RowKind::kDelete;
    for (const std::size_t i : matches) {
      for (uint32_t c = 0; c < other[i].count; ++c) Emit(joined, s, &row, &other[i].row);
    }
    if (o_outer) {
      for (const std::size_t i : matches) {
        if (other[i].n == 1) {
          for (uint32_t c = 0; c < other[i].count; ++c) {
            Emit(RowKind::kInsert, o, &other[i].row, nullptr);
          }
        }
        --other[i].n;
        other[i].written = now;
      }
    }
  }

  void Store(std::vector<Stored>& own, int s, const Tuple& row, int64_t n, int64_t now) {
    if (sides[s].unique) {
      if (own.empty()) {
        own.push_back({row, 1, n, now});
        ++held[s];
      } else {
        own.front() = {row, 1, n, now};  // replaced, not retracted
      }
      return;
    }
    for (Stored& r : own) {
      if (SameRow(r.row, row, sides[s].op_field)) {
        ++r.count;
        r.n = n;
        r.written = now;
        return;
      }
    }
    own.push_back({row, 1, n, now});
    ++held[s];
  }

  void Remove(std::vector<Stored>& own, int s, const Tuple& row) {
    if (sides[s].unique) {
      if (!own.empty()) {
        own.clear();
        --held[s];
      }
      return;
    }
    for (std::size_t i = 0; i < own.size(); ++i) {
      if (!SameRow(own[i].row, row, sides[s].op_field)) continue;
      if (--own[i].count == 0) {
        own.erase(own.begin() + static_cast<std::ptrdiff_t>(i));
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

std::size_t ChangelogJoinState::keys() const noexcept { return impl_->keys.size(); }

std::size_t ChangelogJoinState::rows(JoinSide side) const noexcept {
  return impl_->held[side == JoinSide::kLeft ? 0 : 1];
}

}  // namespace tempest::bolts

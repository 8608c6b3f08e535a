#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bolts/join/field_selector.h"
#include "bolts/join/join_key.h"
#include "bolts/join/join_plan.h"
#include "bolts/windowing/packed_row.h"
#include "bolts/windowing/packed_values.h"
#include "bolts/windowing/row_arena.h"
#include "topology/row_batch.h"

// Internal to JoinBolt's JoinAccumulator: one window's rows of a joined input hashed by key.
// Header-only so that the per-row calls inline into the accumulator's loops.
namespace tempest::bolts::window_join {

using packed::FindPath;
using packed::UnpackValue;
using topology::Value;

// The key parts of a packed row, decoded into reused values (a string keeps its buffer); a key
// of one integer part (the usual key) is kept as that integer only. False when a part is missing
// or null (a null key matches nothing).
struct KeyScratch {
  std::vector<Value> values;
  KeyRef ref;
  bool single_int = false;  // then `integer` is the key; values and ref are not set
  int64_t integer = 0;
  uint64_t Hash() const { return single_int ? HashIntKey(integer) : HashKey(ref); }
};
inline bool RowKey(const PackedRow& r, const std::vector<int>& index,
                   const std::vector<FieldSelector>& key, KeyScratch& out) {
  out.single_int = false;
  if (key.size() == 1) {
    const uint8_t* at = FindPath(r.fields, r.field_count, index[0], key[0].path);
    if (at != nullptr && *at == packed::kInt) {
      ++at;
      out.single_int = true;
      out.integer = packed::UnZigZag(packed::GetVarint(at));
      return true;
    }
  }
  out.values.resize(key.size());
  out.ref.clear();
  for (std::size_t p = 0; p < key.size(); ++p) {
    const uint8_t* at = FindPath(r.fields, r.field_count, index[p], key[p].path);
    if (at == nullptr || *at == packed::kNull) return false;
    UnpackValue(at, out.values[p]);
    out.ref.push_back(&out.values[p]);
  }
  return true;
}
// The accumulator's own copies of select values (picks, probe prefixes) are written once per
// window row and read once per output row: an integer is kept there at a fixed width (the
// kWideInt byte, then its 8 bytes) so that reading it decodes no varint. Other values stay
// packed.
inline constexpr uint8_t kWideInt = 0xF0;  // not a packed::Tag
static_assert(kWideInt > packed::kMap);
// The packed value at `at` (nullptr: a null), appended to `out` as a selected value.
inline void AppendSelected(const uint8_t* at, std::string& out) {
  if (at == nullptr) {
    out.push_back(static_cast<char>(packed::kNull));
    return;
  }
  if (*at == packed::kInt) {
    ++at;
    const int64_t v = packed::UnZigZag(packed::GetVarint(at));
    char wide[1 + sizeof v];
    wide[0] = static_cast<char>(kWideInt);
    std::memcpy(wide + 1, &v, sizeof v);
    out.append(wide, sizeof wide);
    return;
  }
  const uint8_t* end = at;
  packed::Skip(end);
  out.append(reinterpret_cast<const char*>(at), static_cast<std::size_t>(end - at));
}
inline int64_t TakeWideInt(const uint8_t*& p) noexcept {
  int64_t v;
  std::memcpy(&v, p + 1, sizeof v);
  p += 1 + sizeof v;
  return v;
}
// Moves `p` past the selected value at it.
inline void SkipSelected(const uint8_t*& p) noexcept {
  if (*p == kWideInt) {
    p += 1 + sizeof(int64_t);
    return;
  }
  packed::Skip(p);
}
// Appends the selected value at `p` as a cell of `out`'s open row; `p` ends past it.
inline void UnpackSelectedCell(const uint8_t*& p, topology::RowBatch& out) {
  if (*p == kWideInt) {
    out.AddInt(TakeWideInt(p));
    return;
  }
  packed::UnpackCell(p, out);
}
// Appends the selected value at `p` to `out`; `p` ends past it.
inline void UnpackSelectedAppend(const uint8_t*& p, topology::Values& out) {
  if (*p == kWideInt) {
    out.emplace_back(TakeWideInt(p));
    return;
  }
  packed::UnpackAppend(p, out);
}

// A window row in a record: the held row (for anchoring), its parsed header and its input's
// plan. A matched row of the last join has only `held`: its select values come from the
// table's picks, so the row itself is not read again.
struct Slot {
  const HeldRow* held = nullptr;
  PackedRow row;
  const InputPlan* plan = nullptr;
};

// One joined input's rows of the current window, grouped by key: an open-addressing table over
// its distinct keys (capacity kept between windows), and the rows laid out by key, in window
// order within a key, so a probe's matches are one contiguous run. For the last join it also
// copies, in that order, the packed values its rows supply to `select` ("picks"): a probe then
// reads them in sequence instead of from rows scattered over the window (a cache miss per
// output row). A row without a key is a group of its own, never found.
struct JoinedTable {
  struct Group {
    uint64_t hash = 0;
    bool keyed = false;
    uint32_t start = 0, length = 0, cursor = 0;
    uint32_t pick_start = 0, pick_bytes = 0;
    uint32_t key_at = 0;  // keyed groups: where its key's parts begin in `keys`
  };
  std::vector<Group> groups;
  std::vector<Value> keys;  // the keyed groups' keys, decoded; first `key_values` are current
  std::size_t key_values = 0;
  std::vector<int32_t> slots;
  std::vector<uint32_t> group_of;  // by window order: its group; after Place, its position
  std::vector<HeldRow> rows;       // by position: the row
  std::string picks;               // by position (last join only)
  std::vector<uint8_t> matched;    // by position (right and full joins only)
  std::size_t placed = 0;
  std::size_t last_groups = 0;

  void Clear() {
    std::size_t cap = 16;
    while (cap < 2 * last_groups) cap *= 2;
    slots.assign(cap, -1);
    groups.clear();
    key_values = 0;
    group_of.clear();
    picks.clear();
    placed = 0;
  }

  // The group whose key equals `k` (hash h), or -1. Each keyed group keeps its key decoded
  // (its parts from `keys[key_at]` on; buffers reused between windows), so a lookup compares
  // values instead of parsing the group's first row, somewhere in the window.
  int32_t Find(const KeyScratch& k, uint64_t h) const {
    const std::size_t cap = slots.size();
    for (std::size_t s = h & (cap - 1);; s = (s + 1) & (cap - 1)) {
      const int32_t g = slots[s];
      if (g < 0) return -1;
      const Group& group = groups[static_cast<std::size_t>(g)];
      if (group.hash != h) continue;
      const Value* key = keys.data() + group.key_at;
      if (k.single_int) {
        const int64_t* i = key->IfInt();
        if (i != nullptr && *i == k.integer) return g;
        continue;
      }
      bool same = true;
      for (std::size_t p = 0; p < k.ref.size() && same; ++p) same = *k.ref[p] == key[p];
      if (same) return g;
    }
  }

  // The group of key `k` (hash h), added empty if the window has none yet (a probe's key,
  // looked up while the table is still being filled).
  int32_t FindOrAdd(const KeyScratch& k, uint64_t h) {
    const int32_t g = Find(k, h);
    return g >= 0 ? g : NewGroup(&k, h);
  }

  // A row of this input, in window order; `pick_bytes`: the size of its picks.
  void Add(const PackedRow& r, const InputPlan& plan, const std::vector<FieldSelector>& key,
           KeyScratch& k, uint32_t pick_bytes) {
    const int32_t g =
        RowKey(r, plan.key_index, key, k) ? FindOrAdd(k, k.Hash()) : NewGroup(nullptr, 0);
    Group& group = groups[static_cast<std::size_t>(g)];
    ++group.length;
    group.pick_bytes += pick_bytes;
    group_of.push_back(static_cast<uint32_t>(g));
  }

  // After the last Add: where each group's run and picks begin.
  void Layout(bool with_picks, bool with_matched) {
    uint32_t at = 0;
    uint32_t bytes = 0;
    for (Group& g : groups) {
      g.start = g.cursor = at;
      at += g.length;
      g.pick_start = bytes;
      bytes += g.pick_bytes;
    }
    rows.resize(at);
    matched.assign(with_matched ? at : 0, 0);
    if (with_picks) picks.resize(bytes);
    for (Group& g : groups) g.pick_bytes = 0;  // from here: bytes placed so far
    last_groups = groups.size();
  }

  // The rows again, in Add's order: each goes to its place; its picks (`pick`, if any) too.
  void Place(const HeldRow& row, std::string_view pick) {
    Group& group = groups[group_of[placed]];
    const uint32_t p = group.cursor++;
    rows[p] = row;
    group_of[placed++] = p;
    if (!pick.empty()) {
      std::memcpy(picks.data() + group.pick_start + group.pick_bytes, pick.data(), pick.size());
      group.pick_bytes += static_cast<uint32_t>(pick.size());
    }
  }

 private:
  // A new group: of key `k` (hash h), or of one row without a key (k == nullptr).
  int32_t NewGroup(const KeyScratch* k, uint64_t h) {
    const auto g = static_cast<int32_t>(groups.size());
    Group group;
    group.hash = h;
    group.keyed = k != nullptr;
    if (k != nullptr) {
      group.key_at = static_cast<uint32_t>(key_values);
      const std::size_t parts = k->single_int ? 1 : k->values.size();
      if (keys.size() < key_values + parts) keys.resize(key_values + parts);
      if (k->single_int) {
        keys[key_values++] = Value(k->integer);
      } else {
        for (const Value& part : k->values) keys[key_values++] = part;  // reuses string buffers
      }
    }
    groups.push_back(group);
    if (k != nullptr) {
      if (2 * groups.size() > slots.size()) {
        Rehash(2 * slots.size());
      } else {
        Insert(g);
      }
    }
    return g;
  }
  void Insert(int32_t g) {
    const std::size_t cap = slots.size();
    for (std::size_t s = groups[static_cast<std::size_t>(g)].hash & (cap - 1);;
         s = (s + 1) & (cap - 1)) {
      if (slots[s] < 0) {
        slots[s] = g;
        return;
      }
    }
  }
  void Rehash(std::size_t cap) {
    slots.assign(cap, -1);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].keyed) Insert(static_cast<int32_t>(g));
    }
  }
};

}  // namespace tempest::bolts::window_join

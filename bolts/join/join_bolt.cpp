#include "bolts/join/join_bolt.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <stdexcept>

#include "bolts/join/field_selector.h"
#include "bolts/join/join_key.h"
#include "bolts/join/join_plan.h"
#include "bolts/windowing/packed_values.h"
#include "topology/topology_context.h"

namespace tempest::bolts {

using topology::Tuple;
using topology::Value;

const std::string& JoinInputName(JoinSelector selector, const topology::GlobalStreamId& stream) {
  return selector == JoinSelector::kStream ? stream.stream : stream.component;
}

void ValidateJoinClauses(const JoinFrom& from, const std::vector<JoinClause>& joins) {
  if (from.name.empty()) throw std::invalid_argument("the join needs a first input (from)");
  if (from.key.empty())
    throw std::invalid_argument(fmt::format("'{}' needs a join key", from.name));
  std::vector<std::pair<std::string, std::size_t>> declared = {{from.name, from.key.size()}};
  for (const std::string& k : from.key) FieldSelector::ForInput(from.name, k);
  if (joins.size() >= kMaxJoinInputs) {
    throw std::invalid_argument(fmt::format("a join takes at most {} inputs; this one has {}",
                                            kMaxJoinInputs, joins.size() + 1));
  }
  for (const JoinClause& j : joins) {
    for (const auto& [name, parts] : declared) {
      if (name == j.name) {
        throw std::invalid_argument(fmt::format(
            "'{}' is already part of join. Cannot join with it more than once.", j.name));
      }
    }
    const auto with = std::find_if(declared.begin(), declared.end(),
                                   [&](const auto& d) { return d.first == j.with; });
    if (with == declared.end()) {
      throw std::invalid_argument(fmt::format("Stream '{}' was not previously declared", j.with));
    }
    if (j.key.empty()) throw std::invalid_argument(fmt::format("'{}' needs a join key", j.name));
    for (const std::string& k : j.key) FieldSelector::ForInput(j.name, k);
    if (j.key.size() != with->second) {
      throw std::invalid_argument(
          fmt::format("'{}' joins on {} key fields but '{}' has {}: the keys must pair up", j.name,
                      j.key.size(), j.with, with->second));
    }
    declared.emplace_back(j.name, j.key.size());
  }
}

void ValidateJoinBoltConfig(const JoinBoltConfig& c) {
  if (c.select.find_first_not_of(" \t,") == std::string::npos) {
    throw std::invalid_argument("Must specify output fields via .select() method.");
  }
  ValidateJoinClauses(c.from, c.joins);
  ParseSelect(c.select);
  ValidateWindowConfig(c.window);
}

namespace {

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

const char* GroupingName(topology::GroupingType t) { return topology::GroupingTypeName(t).data(); }

}  // namespace

void ValidateJoinInputs(
    const JoinBoltConfig& c, int parallelism,
    const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs,
    const std::vector<topology::GroupingSpec>& groupings) {
  std::vector<std::string> names = {c.from.name};
  std::vector<const std::vector<std::string>*> keys = {&c.from.key};
  for (const JoinClause& j : c.joins) {
    names.push_back(j.name);
    keys.push_back(&j.key);
  }
  const char* by = c.selector == JoinSelector::kStream ? "stream" : "source";
  std::vector<std::string> input_names;
  for (const auto& [stream, fields] : inputs)
    input_names.push_back(JoinInputName(c.selector, stream));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto it = std::find(names.begin(), names.end(), input_names[i]);
    if (it == names.end()) {
      throw std::invalid_argument(fmt::format(
          "input {}:{} is \"{}\" by {}, which the join does not name (join names: {})",
          inputs[i].first.component, inputs[i].first.stream, input_names[i], by, Join(names)));
    }
  }
  for (const std::string& n : names) {
    if (std::find(input_names.begin(), input_names.end(), n) == input_names.end()) {
      throw std::invalid_argument(fmt::format(
          "\"{}\" is not an input of this bolt (its inputs by {}: {})", n, by, Join(input_names)));
    }
  }
  if (parallelism <= 1) return;
  for (std::size_t i = 0; i < inputs.size() && i < groupings.size(); ++i) {
    const std::size_t n = static_cast<std::size_t>(
        std::find(names.begin(), names.end(), input_names[i]) - names.begin());
    std::vector<std::string> key_fields;
    for (const std::string& k : *keys[n]) key_fields.push_back(FieldSelector::Parse(k).path[0]);
    const topology::GroupingSpec& g = groupings[i];
    if (g.type == topology::GroupingType::kGlobal) continue;
    if (g.type == topology::GroupingType::kFields && g.fields == key_fields) continue;
    throw std::invalid_argument(fmt::format(
        "with parallelism {}, input \"{}\" must be fields-grouped on its join key [{}] (or "
        "global), or matching tuples can reach different tasks; it is {}{}",
        parallelism, input_names[i], Join(key_fields), GroupingName(g.type),
        g.type == topology::GroupingType::kFields ? " [" + Join(g.fields) + "]" : ""));
  }
}

namespace {

using packed::FindPath;
using packed::UnpackValue;

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
bool RowKey(const PackedRow& r, const std::vector<int>& index,
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
// The packed value at `at` (nullptr: a null), appended to `out`.
void AppendPacked(const uint8_t* at, std::string& out) {
  if (at == nullptr) {
    out.push_back(static_cast<char>(packed::kNull));
    return;
  }
  const uint8_t* end = at;
  packed::Skip(end);
  out.append(reinterpret_cast<const char*>(at), static_cast<std::size_t>(end - at));
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

}  // namespace

struct JoinBolt::State {
  JoinPlan plan;
  PackedWindowCollector* out = nullptr;
  std::vector<JoinedTable> tables;          // by input position; [0] unused (the probe side)
  std::vector<Slot> records, next_records;  // flat, `width` per record (joins before the last)
  std::vector<const InputPlan*> by_origin;  // the window's row origins: their input's plan
  std::vector<uint8_t> position_of;         // by window row: its input's position + 1, or 0
  std::vector<std::string> reported;        // unknown inputs already reported
  std::vector<HeldRow> anchors;
  // Per select item: whether the last join's input supplies it (its "picks").
  std::vector<uint8_t> select_from_last;
  std::size_t picks_per_row = 0;    // select items of the last join's input
  std::size_t prefix_per_row = 0;   // the others
  const uint8_t* prefix = nullptr;  // BeginMatches: the record's other select values, packed
  std::string prefix_buffer;        // (where BeginMatches packs them from the record's rows)
  KeyScratch key;
  const std::string* output_stream = nullptr;

  std::string picks_in;  // the last join's input's picks, by row in window order
  // Two inputs: per first-input row in window order, its key's group in the joined table (-1:
  // no key) and its select values packed, so the probe reads no row.
  std::vector<int32_t> probe_group;
  std::string prefixes;

  void Reset() {
    for (JoinedTable& t : tables) t.Clear();
    position_of.clear();
    picks_in.clear();
    probe_group.clear();
    prefixes.clear();
  }

  // The next row of the window: its input noted (position + 1; 0: not in the join), a joined
  // input's row added to its table, a first-input row's probe prepared (two inputs).
  void Index(const PackedWindow& w, const HeldRow& held, const PackedRow& r,
             JoinSelector selector) {
    const InputPlan* p = PlanOf(w, held, r, selector);
    const std::size_t last = plan.width - 1;
    if (p != nullptr && p->position == 0 && plan.width == 2) {
      const bool keyed = RowKey(r, p->key_index, plan.keys[0], key);
      probe_group.push_back(keyed ? tables[1].FindOrAdd(key, key.Hash()) : -1);
      for (std::size_t f = 0; f < plan.select.size(); ++f) {
        if (select_from_last[f] != 0) continue;
        AppendPacked(FindPath(r.fields, r.field_count, p->select_index[f], plan.select[f].path),
                     prefixes);
      }
    } else if (p != nullptr && p->position > 0) {
      const std::size_t before = picks_in.size();
      if (p->position == last) AppendPicks(r, *p, picks_in);
      tables[p->position].Add(r, *p, plan.keys[p->position], key,
                              static_cast<uint32_t>(picks_in.size() - before));
    }
    position_of.push_back(p == nullptr ? 0 : static_cast<uint8_t>(p->position + 1));
  }

  // The plan of the row's input (nullptr: the join does not name it; reported once).
  const InputPlan* PlanOf(const PackedWindow& w, const HeldRow& held, const PackedRow& r,
                          JoinSelector selector) {
    // Origins are numbered in arrival order: each new one is resolved once, as it appears.
    while (by_origin.size() <= r.origin) {
      const topology::StreamSchema* schema =
          w.Origin(static_cast<uint32_t>(by_origin.size())).schema;
      by_origin.push_back(plan.Find(topology::GlobalStreamId{schema->component, schema->stream}));
    }
    const InputPlan* p = by_origin[r.origin];
    if (p == nullptr) {
      const topology::StreamSchema* schema = w.Origin(r.origin).schema;
      const std::string& name =
          selector == JoinSelector::kStream ? schema->stream : schema->component;
      if (std::find(reported.begin(), reported.end(), name) == reported.end()) {
        reported.push_back(name);
        out->ReportError(
            fmt::format("tuple {} comes from \"{}\", which the join does not name; "
                        "ignored (and so are the next ones)",
                        w.Unpack(held).ToString(), name));
      }
    }
    return p;
  }

  // The picks of a row of the last join's input, packed, appended to `out`.
  void AppendPicks(const PackedRow& r, const InputPlan& p, std::string& out) const {
    for (std::size_t f = 0; f < select_from_last.size(); ++f) {
      if (select_from_last[f] == 0) continue;
      AppendPacked(FindPath(r.fields, r.field_count, p.select_index[f], plan.select[f].path), out);
    }
  }

  // One output row: `select`ed from the record's rows and anchored to exactly them.
  void EmitRow(const Slot* record) {
    topology::Values row;
    row.reserve(plan.select.size());
    for (std::size_t f = 0; f < plan.select.size(); ++f) {
      const SelectPlan& sel = plan.select[f];
      const Slot& slot = record[sel.input];
      if (slot.held == nullptr) {
        row.emplace_back();
      } else if (const uint8_t* at = FindPath(slot.row.fields, slot.row.field_count,
                                              slot.plan->select_index[f], sel.path)) {
        packed::UnpackAppend(at, row);
      } else {
        row.emplace_back();
      }
    }
    anchors.clear();
    for (std::size_t i = 0; i < plan.width; ++i) {
      if (record[i].held != nullptr) anchors.push_back(*record[i].held);
    }
    out->EmitAnchoredToRows(*output_stream, anchors, std::move(row));
  }

  // The matches of one record in the last join share everything but the last input's values
  // and anchor: those values are found once (BeginMatches) and kept packed, and each match
  // (MatchRows) unpacks them and its picks, instead of finding the record's fields again per row.
  void BeginMatches(const Slot* record, std::size_t last) {
    prefix_buffer.clear();
    for (std::size_t f = 0; f < plan.select.size(); ++f) {
      const SelectPlan& sel = plan.select[f];
      if (sel.input == last) continue;
      const Slot& slot = record[sel.input];
      AppendPacked(slot.held == nullptr ? nullptr
                                        : FindPath(slot.row.fields, slot.row.field_count,
                                                   slot.plan->select_index[f], sel.path),
                   prefix_buffer);
    }
    prefix = reinterpret_cast<const uint8_t*>(prefix_buffer.data());
    anchors.clear();
    for (std::size_t i = 0; i < last; ++i) {
      if (record[i].held != nullptr) anchors.push_back(*record[i].held);
    }
  }
  // As BeginMatches for a first-input row (two inputs) whose select values Index packed at
  // `values`.
  void BeginMatches(const uint8_t* values, const HeldRow& held) {
    prefix = values;
    anchors.clear();
    anchors.push_back(held);
  }
  // The rows of one record's matches, in order (RowFiller: called once per row, in order): the
  // record's select values and the match's picks (from `picks` on), unpacked.
  struct MatchRows final : topology::RowFiller {
    const State* state = nullptr;
    const uint8_t* picks = nullptr;
    void Fill(std::size_t, topology::Values& row) override {
      row.reserve(state->select_from_last.size());
      const uint8_t* values = state->prefix;
      for (const uint8_t from_last : state->select_from_last) {
        packed::UnpackAppend(from_last != 0 ? picks : values, row);
      }
    }
  };
  MatchRows match_rows;
  // One output row per match (`matches`: the joined rows, for their anchors), the matches'
  // picks from `picks` on.
  void EmitMatches(std::span<const HeldRow> matches, const uint8_t* picks) {
    match_rows.state = this;
    match_rows.picks = picks;
    out->EmitRowsAnchoredToRows(*output_stream, anchors, matches, match_rows);
  }
};

JoinBolt::JoinBolt(JoinBoltConfig config) : config_(std::move(config)) {
  ValidateJoinBoltConfig(config_);
}

JoinBolt::~JoinBolt() = default;

void JoinBolt::Prepare(const topology::TopologyContext& context, PackedWindowCollector& collector) {
  std::vector<std::pair<topology::GlobalStreamId, topology::Fields>> inputs;
  std::vector<topology::GroupingSpec> groupings;
  const topology::ComponentSpec* self =
      topology::ContextAccess::Topology(context).Find(context.GetThisComponentId());
  for (const topology::InputSpec& in : self->inputs) {
    inputs.emplace_back(in.source,
                        context.GetComponentOutputFields(in.source.component, in.source.stream));
    groupings.push_back(in.grouping);
  }
  ValidateJoinInputs(config_, self->parallelism, inputs, groupings);
  state_ = std::make_unique<State>();
  State& s = *state_;
  s.plan = PlanJoin(config_, inputs);
  s.out = &collector;
  s.output_stream = &config_.output_stream;
  s.tables.resize(s.plan.width);
  for (std::size_t f = 0; f < s.plan.select.size(); ++f) {
    const bool from_last = s.plan.width > 1 && s.plan.select[f].input == s.plan.width - 1;
    s.select_from_last.push_back(from_last ? 1 : 0);
    ++(from_last ? s.picks_per_row : s.prefix_per_row);
  }
}

std::vector<uint8_t> JoinBolt::FieldsRead(const topology::StreamSchema& stream) const {
  if (!state_) return {};  // not prepared
  const InputPlan* p = state_->plan.Find(topology::GlobalStreamId{stream.component, stream.stream});
  if (p == nullptr || !stream.fields) return {};
  std::vector<uint8_t> read(stream.fields->size(), 0);
  for (const std::vector<int>* indexes : {&p->key_index, &p->select_index}) {
    for (int i : *indexes) {
      if (i >= 0 && static_cast<std::size_t>(i) < read.size())
        read[static_cast<std::size_t>(i)] = 1;
    }
  }
  return read;
}

void JoinBolt::Execute(const PackedWindow& window) {
  State& s = *state_;
  const JoinPlan& plan = s.plan;
  const std::size_t width = plan.width;
  const std::size_t last = width - 1;

  // Index: every joined input's rows into their table, the first input's probes prepared.
  const PackedWindow::Rows rows = window.Get();
  s.Reset();
  for (const HeldRow& held : rows) s.Index(window, held, window.Row(held), config_.selector);
  for (std::size_t j = 1; j < width; ++j) {
    const JoinType type = plan.clauses[j].type;
    s.tables[j].Layout(j == last, type == JoinType::kRight || type == JoinType::kFull);
  }
  // Each joined row to its place in its table, with its picks (the last join's input): read
  // from what Index kept, not from the row.
  if (width > 1) {
    const auto* pick_at = reinterpret_cast<const uint8_t*>(s.picks_in.data());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (s.position_of[i] <= 1) continue;
      const std::size_t j = s.position_of[i] - 1u;
      std::string_view pick;
      if (j == last) {
        const uint8_t* from = pick_at;
        for (std::size_t n = s.picks_per_row; n > 0; --n) packed::Skip(pick_at);
        pick = {reinterpret_cast<const char*>(from), static_cast<std::size_t>(pick_at - from)};
      }
      s.tables[j].Place(rows[i], pick);
    }
  }

  // The first input's rows in window order, one record each (in `record`, `width` slots).
  std::vector<Slot> record(width);
  const auto first_record = [&](std::size_t i) {
    const PackedRow r = window.Row(rows[i]);
    record[0] = Slot{&rows[i], r, s.by_origin[r.origin]};
    return record.data();
  };
  const auto for_each_probe = [&](auto&& probe) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (s.position_of[i] == 1) probe(first_record(i));
    }
  };
  if (width == 1) {
    for_each_probe([&](const Slot* rec) { s.EmitRow(rec); });
    return;
  }

  // Join in declaration order. The last join emits its rows as it finds them instead of
  // collecting them first (at large windows they would be most of the memory and time).
  std::vector<Slot> row(width);
  for (std::size_t j = 1; j < width; ++j) {
    const ClausePlan& c = plan.clauses[j];
    JoinedTable& table = s.tables[j];
    const bool is_last = j == last;
    s.next_records.clear();
    // A row read without the picks (an unmatched probe, a padded row of the table), or a record
    // for the next join; `joined`: the table's row in it, if any.
    const auto out = [&](const Slot* rec, const Slot* joined) {
      if (is_last) {
        std::copy(rec, rec + width, row.begin());
        row[j] = joined != nullptr ? *joined : Slot{};
        s.EmitRow(row.data());
        return;
      }
      const std::size_t at = s.next_records.size();
      s.next_records.insert(s.next_records.end(), rec, rec + width);
      if (joined != nullptr) s.next_records[at + j] = *joined;
    };
    const auto joined_slot = [&](uint32_t p, bool full) {
      Slot slot;
      slot.held = &table.rows[p];
      if (full) {
        slot.row = window.Row(*slot.held);
        slot.plan = s.by_origin[slot.row.origin];
      }
      return slot;
    };
    const bool keep_unmatched = c.type == JoinType::kLeft || c.type == JoinType::kFull;
    const bool pads = c.type == JoinType::kRight || c.type == JoinType::kFull;
    // The last join: one row per match of the group (BeginMatches done); only the joined row
    // changes, and the rows read the picks on.
    const auto emit_matches = [&](const JoinedTable::Group& group) {
      if (pads) std::fill_n(table.matched.begin() + group.start, group.length, 1);
      s.EmitMatches({table.rows.data() + group.start, group.length},
                    reinterpret_cast<const uint8_t*>(table.picks.data()) + group.pick_start);
    };
    // The group g, or nullptr: none, or one with no rows (a probe's key added by Index).
    const auto matched_group = [&](int32_t g) -> const JoinedTable::Group* {
      if (g < 0) return nullptr;
      const JoinedTable::Group& group = table.groups[static_cast<std::size_t>(g)];
      return group.length > 0 ? &group : nullptr;
    };
    const auto probe = [&](const Slot* rec) {
      const Slot& with = rec[c.with];
      const bool has_key =
          with.held != nullptr && RowKey(with.row, with.plan->key_index, plan.keys[c.with], s.key);
      if (!has_key && !config_.keep_null_probe_keys) return;  // Storm: dropped
      const JoinedTable::Group* group =
          matched_group(has_key ? table.Find(s.key, s.key.Hash()) : -1);
      if (group == nullptr) {
        if (keep_unmatched) out(rec, nullptr);
        return;
      }
      if (is_last) {
        s.BeginMatches(rec, last);
        emit_matches(*group);
        return;
      }
      for (uint32_t p = group->start; p < group->start + group->length; ++p) {
        if (pads) table.matched[p] = 1;
        const Slot slot = joined_slot(p, true);
        out(rec, &slot);
      }
    };
    if (j == 1 && width == 2) {
      // Two inputs: the probes' groups and select values are ready (Index); a row is read only
      // when it is emitted unmatched.
      const auto* values_at = reinterpret_cast<const uint8_t*>(s.prefixes.data());
      std::size_t k = 0;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (s.position_of[i] != 1) continue;
        const int32_t g = s.probe_group[k++];
        const uint8_t* values = values_at;
        for (std::size_t n = s.prefix_per_row; n > 0; --n) packed::Skip(values_at);
        if (g < 0 && !config_.keep_null_probe_keys) continue;  // Storm: dropped
        if (const JoinedTable::Group* group = matched_group(g)) {
          s.BeginMatches(values, rows[i]);
          emit_matches(*group);
        } else if (keep_unmatched) {
          out(first_record(i), nullptr);
        }
      }
    } else if (j == 1) {
      for_each_probe(probe);
    } else {
      for (std::size_t r = 0; r < s.records.size(); r += width) probe(&s.records[r]);
    }
    if (pads) {
      std::vector<Slot> none(width);
      // Padded in window order.
      for (const uint32_t p : table.group_of) {
        if (table.matched[p] != 0) continue;
        const Slot slot = joined_slot(p, true);
        out(none.data(), &slot);
      }
    }
    if (!is_last) std::swap(s.records, s.next_records);
  }
}

void JoinBolt::DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const {
  std::vector<std::string> names;
  for (const FieldSelector& f : ParseSelect(config_.select)) names.push_back(f.output_name);
  declarer.DeclareStream(config_.output_stream, topology::Fields(std::move(names)));
}

// Fluent builder.

JoinBoltBuilder::JoinBoltBuilder(JoinSelector selector, std::string from, std::string key)
    : JoinBoltBuilder(selector, std::move(from), std::vector<std::string>{std::move(key)}) {}

JoinBoltBuilder::JoinBoltBuilder(JoinSelector selector, std::string from,
                                 std::vector<std::string> key) {
  config_.selector = selector;
  config_.from = {std::move(from), std::move(key)};
  config_.window = WindowConfig::Tumbling(WindowSpan::Count(1));
}

JoinBoltBuilder& JoinBoltBuilder::Join(JoinType type, std::string name,
                                       std::vector<std::string> key, std::string with) {
  config_.joins.push_back({type, std::move(name), std::move(key), std::move(with)});
  try {
    ValidateJoinClauses(config_.from, config_.joins);
  } catch (...) {
    config_.joins.pop_back();
    throw;
  }
  return *this;
}
JoinBoltBuilder& JoinBoltBuilder::Join(std::string name, std::string key, std::string with) {
  return Join(JoinType::kInner, std::move(name), {std::move(key)}, std::move(with));
}
JoinBoltBuilder& JoinBoltBuilder::LeftJoin(std::string name, std::string key, std::string with) {
  return Join(JoinType::kLeft, std::move(name), {std::move(key)}, std::move(with));
}
JoinBoltBuilder& JoinBoltBuilder::RightJoin(std::string name, std::string key, std::string with) {
  return Join(JoinType::kRight, std::move(name), {std::move(key)}, std::move(with));
}
JoinBoltBuilder& JoinBoltBuilder::FullJoin(std::string name, std::string key, std::string with) {
  return Join(JoinType::kFull, std::move(name), {std::move(key)}, std::move(with));
}
JoinBoltBuilder& JoinBoltBuilder::Select(std::string fields) {
  ParseSelect(fields);
  config_.select = std::move(fields);
  return *this;
}
JoinBoltBuilder& JoinBoltBuilder::WithOutputStream(std::string stream) {
  config_.output_stream = std::move(stream);
  return *this;
}
JoinBoltBuilder& JoinBoltBuilder::WithNullProbeKeys(bool keep) {
  config_.keep_null_probe_keys = keep;
  return *this;
}
JoinBoltBuilder& JoinBoltBuilder::WithTumblingWindow(WindowSpan length) {
  return WithShape(WindowConfig::Type::kTumbling, length, length);
}
JoinBoltBuilder& JoinBoltBuilder::WithWindow(WindowSpan length, WindowSpan slide) {
  return WithShape(WindowConfig::Type::kSliding, length, slide);
}
// Sets the window's type and spans, keeping its event-time settings.
JoinBoltBuilder& JoinBoltBuilder::WithShape(WindowConfig::Type type, WindowSpan length,
                                            WindowSpan slide) {
  config_.window.type = type;
  config_.window.length = length;
  config_.window.slide = slide;
  return *this;
}
JoinBoltBuilder& JoinBoltBuilder::WithWindowConfig(WindowConfig window) {
  window.type = config_.window.type;
  window.length = config_.window.length;
  window.slide = config_.window.slide;
  config_.window = std::move(window);
  return *this;
}

topology::BoltFactory JoinBoltBuilder::Build() const {
  ValidateJoinBoltConfig(config_);
  if (config_.window.type == WindowConfig::Type::kSliding) {
    spdlog::warn(
        "JoinBolt with a sliding window: a pair of tuples in several windows is joined "
        "(and emitted) once per window");
  }
  const JoinBoltConfig config = config_;
  const topology::Fields late = late_fields_;
  const std::vector<LateRoute> routes = routes_;
  AdaptWindowedBolt(std::make_unique<JoinBolt>(config), config.window, late, routes);  // checks
  return [config, late, routes] {
    return AdaptWindowedBolt(std::make_unique<JoinBolt>(config), config.window, late, routes);
  };
}

JoinBoltBuilder& JoinBoltBuilder::WithLateTupleStream(std::string stream, topology::Fields fields) {
  config_.window.late_stream = std::move(stream);
  late_fields_ = std::move(fields);
  return *this;
}

JoinBoltBuilder& JoinBoltBuilder::WithLateTupleStream(const std::string& input, std::string stream,
                                                      topology::Fields fields) {
  bool found = config_.from.name == input;
  if (found) config_.from.late_stream = stream;
  for (JoinClause& j : config_.joins) {
    if (j.name == input) {
      j.late_stream = stream;
      found = true;
    }
  }
  if (!found) {
    throw std::invalid_argument(fmt::format("\"{}\" is not an input of the join", input));
  }
  routes_.push_back(
      {input, config_.selector == JoinSelector::kStream, std::move(stream), std::move(fields)});
  return *this;
}

std::vector<LateRoute> JoinLateRoutes(
    const JoinBoltConfig& config,
    const std::function<topology::Fields(const std::string& name)>& fields_of) {
  std::vector<LateRoute> routes;
  auto add = [&](const std::string& name, const std::string& stream) {
    if (stream.empty()) return;
    routes.push_back({name, config.selector == JoinSelector::kStream, stream, fields_of(name)});
  };
  add(config.from.name, config.from.late_stream);
  for (const JoinClause& j : config.joins) add(j.name, j.late_stream);
  return routes;
}

}  // namespace tempest::bolts

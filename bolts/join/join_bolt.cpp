#include "bolts/join/join_bolt.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

#include "bolts/join/field_selector.h"
#include "bolts/join/join_key.h"
#include "bolts/join/join_plan.h"

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

// A window tuple with its input's plan, found once per window (reading the schema again later
// would touch the tuple again: a cache miss per output row at large windows).
struct Slot {
  const Tuple* tuple = nullptr;
  const InputPlan* plan = nullptr;
  uint32_t index = 0;  // a joined input's tuple: its place in the input's regrouped arrays
};

// One joined input's tuples of the current window, hashed on their key: an open-addressing
// table over the tuples' keys, rebuilt (capacity kept) per window. Build then lays the tuples
// out grouped by key, in window order within a key, and their picked values (the select items
// they supply) likewise: a probe's matches are one contiguous run, read sequentially, where a
// chain through the window would cost a cache miss per output row. Each entry keeps its hash and
// pointers to its key values, so a probe compares them without looking into the tuple again.
struct KeyTable {
  std::vector<Slot> entries;       // window order until Build, then grouped by key
  std::vector<uint64_t> hashes;    // by window order, like the rest
  std::vector<const Value*> keys;  // `parts` per entry
  std::vector<int32_t> head;     // the first tuple with the same key (itself if first, or keyless)
  std::vector<uint32_t> start;   // for a head: where its key's run begins
  std::vector<uint32_t> length;  // for a head: its run's length
  std::vector<uint32_t> cursor;
  std::vector<uint32_t> position;  // where each tuple went
  std::vector<int32_t> slots;
  std::vector<uint8_t> matched;  // by position
  std::vector<Value> carry_picks;
  std::size_t parts = 1;

  void Clear() { entries.clear(); }
  void Add(const Tuple* t, const InputPlan* plan) {
    entries.push_back({t, plan, static_cast<uint32_t>(entries.size())});
  }
  bool Same(const KeyRef& k, int32_t entry) const {
    const Value* const* other = &keys[static_cast<std::size_t>(entry) * parts];
    for (std::size_t p = 0; p < parts; ++p) {
      if (!(*k[p] == *other[p])) return false;
    }
    return true;
  }
  // `picked` holds `columns` values per tuple in window order; it is regrouped with them.
  void Build(const std::vector<FieldSelector>& key, std::vector<Value>& picked,
             std::size_t columns) {
    const std::size_t n = entries.size();
    parts = key.size();
    hashes.resize(n);
    keys.resize(n * parts);
    head.resize(n);
    length.assign(n, 0);
    std::size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    slots.assign(cap, -1);
    KeyRef k;
    for (std::size_t i = 0; i < n; ++i) {
      const auto self = static_cast<int32_t>(i);
      head[i] = self;
      if (!ExtractKey(*entries[i].tuple, entries[i].plan->key_index, key, k)) {
        length[i] = 1;  // a run of its own, never found
        continue;
      }
      std::copy(k.begin(), k.end(), keys.begin() + static_cast<std::ptrdiff_t>(i * parts));
      hashes[i] = HashKey(k);
      for (std::size_t s = hashes[i] & (cap - 1);; s = (s + 1) & (cap - 1)) {
        const int32_t h = slots[s];
        if (h < 0) {
          slots[s] = self;
          break;
        }
        if (hashes[h] != hashes[i] || !Same(k, h)) continue;
        head[i] = h;
        break;
      }
      ++length[head[i]];
    }
    start.resize(n);
    cursor.resize(n);
    uint32_t at = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (head[i] != static_cast<int32_t>(i)) continue;
      start[i] = cursor[i] = at;
      at += length[i];
    }
    position.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      position[i] = cursor[static_cast<std::size_t>(head[i])]++;
      entries[i].index = position[i];
    }
    // Moves each tuple and its picks to its position in place, one permutation cycle at a time
    // (no second copy of the window's arrays). `matched` marks what has been placed.
    matched.assign(n, 0);
    carry_picks.resize(columns);
    for (std::size_t i = 0; i < n; ++i) {
      if (matched[i] != 0) continue;
      Slot carry = entries[i];
      for (std::size_t c = 0; c < columns; ++c) carry_picks[c] = std::move(picked[i * columns + c]);
      for (std::size_t j = i;;) {
        matched[j] = 1;
        const std::size_t p = position[j];
        std::swap(carry, entries[p]);
        for (std::size_t c = 0; c < columns; ++c)
          std::swap(carry_picks[c], picked[p * columns + c]);
        if (p == i) break;
        j = p;
      }
    }
    carry_picks.clear();
    matched.assign(n, 0);
  }
  // The first tuple (in window order) whose key equals `k` (hash h), or -1.
  int32_t Find(const KeyRef& k, uint64_t h) const {
    const std::size_t cap = slots.size();
    for (std::size_t s = h & (cap - 1);; s = (s + 1) & (cap - 1)) {
      const int32_t first = slots[s];
      if (first < 0) return -1;
      if (hashes[first] == h && Same(k, first)) return first;
    }
  }
};

}  // namespace

struct JoinBolt::State {
  JoinPlan plan;
  topology::OutputCollector* out = nullptr;
  std::vector<KeyTable> tables;             // by input position; [0] unused (the probe side)
  std::vector<Slot> records, next_records;  // flat, `width` per record
  std::vector<std::pair<const topology::StreamSchema*, const InputPlan*>> schemas;
  std::vector<std::string> reported;  // unknown inputs already reported
  std::vector<const Tuple*> anchors;
  // The values the joined inputs supply to `select`, copied out of their tuples once per window:
  // rows read them from dense arrays in key order instead of from tuples scattered over the
  // window (a cache miss per row). The first input's are read from its tuples.
  std::vector<std::vector<std::size_t>> picks;  // by position: the select items it supplies
  std::vector<std::size_t> pick_column;  // by select item of a joined input: its place in the picks
  std::vector<std::vector<Value>> picked;  // by position: picks.size() per tuple, by index
  const std::string* output_stream = nullptr;
  std::size_t last_records = 0;  // probe records of the previous window: the next reserves as many

  const InputPlan* PlanOf(const Tuple& t) {
    for (const auto& [schema, p] : schemas) {
      if (schema == t.schema()) return p;
    }
    const InputPlan* p = plan.Find(t.GetSourceGlobalStreamId());
    schemas.emplace_back(t.schema(), p);
    return p;
  }

  void PlanPicks() {
    picks.assign(plan.width, {});
    pick_column.clear();
    for (std::size_t f = 0; f < plan.select.size(); ++f) {
      // The first input's tuples are read in window order, as they are held: no copies.
      std::vector<std::size_t>& of = picks[plan.select[f].input];
      pick_column.push_back(of.size());
      if (plan.select[f].input != 0) of.push_back(f);
    }
    picked.assign(plan.width, {});
  }
  // Copies the values `t` supplies to the select list (null where it lacks a field).
  void Pick(const Tuple& t, const InputPlan& p) {
    std::vector<Value>& to = picked[p.position];
    for (std::size_t f : picks[p.position]) {
      const Value* v = LookupPath(t, p.select_index[f], plan.select[f].path);
      to.push_back(v != nullptr ? *v : Value());
    }
  }
  const Value* PickedOf(const Slot& slot) const {
    return picked[slot.plan->position].data() + slot.index * picks[slot.plan->position].size();
  }

  // One output row: `select`ed from the record's tuples and anchored to exactly them.
  void EmitRow(const Slot* record) {
    topology::Values row;
    row.reserve(plan.select.size());
    for (std::size_t f = 0; f < plan.select.size(); ++f) {
      const SelectPlan& sel = plan.select[f];
      const Slot& slot = record[sel.input];
      if (slot.tuple == nullptr) {
        row.emplace_back();
      } else if (sel.input != 0) {
        row.push_back(PickedOf(slot)[pick_column[f]]);
      } else if (const Value* v = LookupPath(*slot.tuple, slot.plan->select_index[f], sel.path)) {
        row.push_back(*v);
      } else {
        row.emplace_back();
      }
    }
    anchors.clear();
    for (std::size_t i = 0; i < plan.width; ++i) {
      if (record[i].tuple != nullptr) anchors.push_back(record[i].tuple);
    }
    out->Emit(*output_stream, topology::Anchors(anchors.data(), anchors.size()), std::move(row));
  }
};

JoinBolt::JoinBolt(JoinBoltConfig config) : config_(std::move(config)) {
  ValidateJoinBoltConfig(config_);
}

JoinBolt::~JoinBolt() = default;

void JoinBolt::Prepare(const topology::TopologyContext& context,
                       topology::OutputCollector& collector) {
  std::vector<std::pair<topology::GlobalStreamId, topology::Fields>> inputs;
  std::vector<topology::GroupingSpec> groupings;
  const topology::ComponentSpec* self = context.GetRawTopology().Find(context.GetThisComponentId());
  for (const topology::InputSpec& in : self->inputs) {
    inputs.emplace_back(in.source,
                        context.GetComponentOutputFields(in.source.component, in.source.stream));
    groupings.push_back(in.grouping);
  }
  ValidateJoinInputs(config_, self->parallelism, inputs, groupings);
  state_ = std::make_unique<State>();
  state_->plan = PlanJoin(config_, inputs);
  state_->out = &collector;
  state_->output_stream = &config_.output_stream;
  state_->tables.resize(state_->plan.width);
  state_->PlanPicks();
}

void JoinBolt::Execute(const TupleWindow& window) {
  State& s = *state_;
  const JoinPlan& plan = s.plan;
  const std::size_t width = plan.width;
  for (KeyTable& t : s.tables) t.Clear();
  for (std::vector<Value>& p : s.picked) p.clear();
  s.records.clear();
  s.records.reserve(s.last_records);

  // Build: the first input's tuples become records, the others go into their tables.
  for (const Tuple* t : window.Get()) {
    const InputPlan* p = s.PlanOf(*t);
    if (p == nullptr) {
      const std::string name = JoinInputName(config_.selector, t->GetSourceGlobalStreamId());
      if (std::find(s.reported.begin(), s.reported.end(), name) == s.reported.end()) {
        s.reported.push_back(name);
        s.out->ReportError(
            fmt::format("tuple {} comes from \"{}\", which the join does not name; "
                        "ignored (and so are the next ones)",
                        t->ToString(), name));
      }
      continue;
    }
    if (p->position == 0) {
      s.records.push_back({t, p});
      s.records.resize(s.records.size() + width - 1);
    } else {
      s.tables[p->position].Add(t, p);
    }
    s.Pick(*t, *p);
  }

  s.last_records = s.records.size();

  // Join in declaration order. The last join emits its rows as it finds them instead of
  // collecting them first (at large windows they would be most of the memory and time).
  if (width == 1) {
    for (const Slot& r : s.records) s.EmitRow(&r);
    for (std::vector<Value>& p : s.picked) p.clear();
    return;
  }
  KeyRef key;
  std::vector<Slot> row(width);
  for (std::size_t j = 1; j < width; ++j) {
    const ClausePlan& c = plan.clauses[j];
    KeyTable& table = s.tables[j];
    table.Build(plan.keys[j], s.picked[j], s.picks[j].size());
    const bool last = j + 1 == width;
    s.next_records.clear();
    if (!last) s.next_records.reserve(s.records.size());
    const auto out = [&](const Slot* record, const Slot* joined) {
      if (last) {
        std::copy(record, record + width, row.begin());
        row[j] = joined != nullptr ? *joined : Slot{};
        s.EmitRow(row.data());
        return;
      }
      const std::size_t at = s.next_records.size();
      s.next_records.insert(s.next_records.end(), record, record + width);
      if (joined != nullptr) s.next_records[at + j] = *joined;
    };
    const bool keep_unmatched = c.type == JoinType::kLeft || c.type == JoinType::kFull;
    for (std::size_t r = 0; r < s.records.size(); r += width) {
      const Slot* record = &s.records[r];
      const Slot& with = record[c.with];
      const bool has_key = with.tuple != nullptr &&
                           ExtractKey(*with.tuple, with.plan->key_index, plan.keys[c.with], key);
      if (!has_key && !config_.keep_null_probe_keys) continue;  // Storm: dropped
      int32_t m = has_key ? table.Find(key, HashKey(key)) : -1;
      if (m < 0) {
        if (keep_unmatched) out(record, nullptr);
        continue;
      }
      const uint32_t begin = table.start[static_cast<std::size_t>(m)];
      const uint32_t end = begin + table.length[static_cast<std::size_t>(m)];
      for (uint32_t p = begin; p < end; ++p) {
        table.matched[p] = 1;
        out(record, &table.entries[p]);
      }
    }
    if (c.type == JoinType::kRight || c.type == JoinType::kFull) {
      std::vector<Slot> none(width);
      // Padded in window order.
      for (std::size_t i = 0; i < table.entries.size(); ++i) {
        const uint32_t p = table.position[i];
        if (table.matched[p] == 0) out(none.data(), &table.entries[p]);
      }
    }
    if (!last) std::swap(s.records, s.next_records);
  }
  for (std::vector<Value>& p : s.picked) p.clear();  // the copies of this window's strings
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

#include "bolts/join/join_accumulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "bolts/windowing/packed_values.h"
#include "topology/fields.h"

namespace tempest::bolts {

using window_join::AppendSelected;
using window_join::FindPath;
using window_join::RowKey;
using window_join::SkipSelected;
using window_join::UnpackSelectedAppend;
using window_join::UnpackSelectedCell;

namespace {

bool KeepsUnmatched(JoinType t) { return t == JoinType::kLeft || t == JoinType::kFull; }
bool Pads(JoinType t) { return t == JoinType::kRight || t == JoinType::kFull; }

}  // namespace

JoinAccumulator::JoinAccumulator(const JoinBoltConfig& config, JoinPlan plan,
                                 PackedWindowCollector& out)
    : keep_null_probe_keys_(config.keep_null_probe_keys),
      output_stream_(topology::EmitStreamName(config.output_stream)),
      plan_(std::move(plan)),
      out_(&out),
      selector_(config.selector) {
  tables_.resize(plan_.width);
  record_.resize(plan_.width);
  row_.resize(plan_.width);
  for (std::size_t f = 0; f < plan_.select.size(); ++f) {
    const bool from_last = plan_.width > 1 && plan_.select[f].input == plan_.width - 1;
    select_from_last_.push_back(from_last ? 1 : 0);
    ++(from_last ? picks_per_row_ : prefix_per_row_);
  }
}

// Build.

void JoinAccumulator::Build(const PackedWindow& window) {
  window_ = &window;
  rows_ = window.Get();
  for (JoinedTable& t : tables_) t.Clear();
  position_of_.clear();
  picks_in_.clear();
  probe_group_.clear();
  prefixes_.clear();
  for (const HeldRow& held : rows_) Index(held, window.Row(held));
  for (std::size_t j = 1; j < plan_.width; ++j) {
    tables_[j].Layout(j == plan_.width - 1, Pads(plan_.clauses[j].type));
  }
  PlaceRows();
}

void JoinAccumulator::Index(const HeldRow& held, const PackedRow& r) {
  const InputPlan* p = PlanOf(held, r);
  const std::size_t last = plan_.width - 1;
  if (p != nullptr && p->position == 0 && plan_.width == 2) {
    const bool keyed = RowKey(r, p->key_index, plan_.keys[0], key_);
    probe_group_.push_back(keyed ? tables_[1].FindOrAdd(key_, key_.Hash()) : -1);
    for (std::size_t f = 0; f < plan_.select.size(); ++f) {
      if (select_from_last_[f] != 0) continue;
      AppendSelected(FindPath(r.fields, r.field_count, p->select_index[f], plan_.select[f].path),
                     prefixes_);
    }
  } else if (p != nullptr && p->position > 0) {
    const std::size_t before = picks_in_.size();
    if (p->position == last) AppendPicks(r, *p, picks_in_);
    tables_[p->position].Add(r, *p, plan_.keys[p->position], key_,
                             static_cast<uint32_t>(picks_in_.size() - before));
  }
  position_of_.push_back(p == nullptr ? 0 : static_cast<uint8_t>(p->position + 1));
}

const InputPlan* JoinAccumulator::PlanOf(const HeldRow& held, const PackedRow& r) {
  // Origins are numbered in arrival order: each new one is resolved once, as it appears.
  while (by_origin_.size() <= r.origin) {
    const topology::StreamSchema* schema =
        window_->Origin(static_cast<uint32_t>(by_origin_.size())).schema;
    by_origin_.push_back(plan_.Find(topology::GlobalStreamId{schema->component, schema->stream}));
  }
  const InputPlan* p = by_origin_[r.origin];
  if (p == nullptr) {
    const topology::StreamSchema* schema = window_->Origin(r.origin).schema;
    const std::string& name =
        selector_ == JoinSelector::kStream ? schema->stream : schema->component;
    if (std::find(reported_.begin(), reported_.end(), name) == reported_.end()) {
      reported_.push_back(name);
      out_->ReportError(
          fmt::format("tuple {} comes from \"{}\", which the join does not name; "
                      "ignored (and so are the next ones)",
                      window_->Unpack(held).ToString(), name));
    }
  }
  return p;
}

// The picks are read from what Index kept, not from the rows.
void JoinAccumulator::PlaceRows() {
  if (plan_.width < 2) return;
  const std::size_t last = plan_.width - 1;
  const auto* pick_at = reinterpret_cast<const uint8_t*>(picks_in_.data());
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (position_of_[i] <= 1) continue;
    const std::size_t j = position_of_[i] - 1u;
    std::string_view pick;
    if (j == last) {
      const uint8_t* from = pick_at;
      for (std::size_t n = picks_per_row_; n > 0; --n) SkipSelected(pick_at);
      pick = {reinterpret_cast<const char*>(from), static_cast<std::size_t>(pick_at - from)};
    }
    tables_[j].Place(rows_[i], pick);
  }
}

void JoinAccumulator::AppendPicks(const PackedRow& r, const InputPlan& p, std::string& out) const {
  for (std::size_t f = 0; f < select_from_last_.size(); ++f) {
    if (select_from_last_[f] == 0) continue;
    AppendSelected(FindPath(r.fields, r.field_count, p.select_index[f], plan_.select[f].path), out);
  }
}

// Probe.

const JoinAccumulator::Slot* JoinAccumulator::FirstRecord(std::size_t i) {
  const PackedRow r = window_->Row(rows_[i]);
  record_[0] = Slot{&rows_[i], r, by_origin_[r.origin]};
  return record_.data();
}

void JoinAccumulator::EmitRecords() {
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (position_of_[i] == 1) EmitRow(FirstRecord(i));
  }
}

void JoinAccumulator::Probe(std::size_t j) {
  if (j >= 2) std::swap(records_, next_records_);  // what join j - 1 made
  next_records_.clear();
  if (j == 1 && plan_.width == 2) {
    ProbePrepared();
  } else if (j == 1) {
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      if (position_of_[i] == 1) ProbeRecord(j, FirstRecord(i));
    }
  } else {
    for (std::size_t r = 0; r < records_.size(); r += plan_.width) ProbeRecord(j, &records_[r]);
  }
}

void JoinAccumulator::ProbeRecord(std::size_t j, const Slot* record) {
  const ClausePlan& c = plan_.clauses[j];
  JoinedTable& table = tables_[j];
  const Slot& with = record[c.with];
  const bool has_key =
      with.held != nullptr && RowKey(with.row, with.plan->key_index, plan_.keys[c.with], key_);
  if (!has_key && !keep_null_probe_keys_) return;  // Storm: dropped
  const JoinedTable::Group* group =
      MatchedGroup(table, has_key ? table.Find(key_, key_.Hash()) : -1);
  if (group == nullptr) {
    if (KeepsUnmatched(c.type)) Out(j, record, nullptr);
    return;
  }
  if (j == plan_.width - 1) {
    BeginMatches(record, j);
    EmitMatches(j, *group);
    return;
  }
  for (uint32_t p = group->start; p < group->start + group->length; ++p) {
    if (Pads(c.type)) table.matched[p] = 1;
    const Slot slot = JoinedSlot(table, p, true);
    Out(j, record, &slot);
  }
}

void JoinAccumulator::ProbePrepared() {
  const JoinType type = plan_.clauses[1].type;
  const auto* values_at = reinterpret_cast<const uint8_t*>(prefixes_.data());
  std::size_t k = 0;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (position_of_[i] != 1) continue;
    const int32_t g = probe_group_[k++];
    const uint8_t* values = values_at;
    for (std::size_t n = prefix_per_row_; n > 0; --n) SkipSelected(values_at);
    if (g < 0 && !keep_null_probe_keys_) continue;  // Storm: dropped
    if (const JoinedTable::Group* group = MatchedGroup(tables_[1], g)) {
      BeginMatches(values, rows_[i]);
      EmitMatches(1, *group);
    } else if (KeepsUnmatched(type)) {
      Out(1, FirstRecord(i), nullptr);
    }
  }
}

void JoinAccumulator::Out(std::size_t j, const Slot* record, const Slot* joined) {
  const std::size_t width = plan_.width;
  if (j == width - 1) {
    std::copy(record, record + width, row_.begin());
    row_[j] = joined != nullptr ? *joined : Slot{};
    EmitRow(row_.data());
    return;
  }
  const std::size_t at = next_records_.size();
  next_records_.insert(next_records_.end(), record, record + width);
  if (joined != nullptr) next_records_[at + j] = *joined;
}

JoinAccumulator::Slot JoinAccumulator::JoinedSlot(const JoinedTable& table, uint32_t p,
                                                  bool full) const {
  Slot slot;
  slot.held = &table.rows[p];
  if (full) {
    slot.row = window_->Row(*slot.held);
    slot.plan = by_origin_[slot.row.origin];
  }
  return slot;
}

const JoinAccumulator::JoinedTable::Group* JoinAccumulator::MatchedGroup(const JoinedTable& table,
                                                                         int32_t g) {
  if (g < 0) return nullptr;
  const JoinedTable::Group& group = table.groups[static_cast<std::size_t>(g)];
  return group.length > 0 ? &group : nullptr;
}

// Pad.

void JoinAccumulator::Pad(std::size_t j) {
  const JoinedTable& table = tables_[j];
  std::fill(record_.begin(), record_.end(), Slot{});
  for (const uint32_t p : table.group_of) {  // in window order
    if (table.matched[p] != 0) continue;
    const Slot slot = JoinedSlot(table, p, true);
    Out(j, record_.data(), &slot);
  }
}

// Emitting.

void JoinAccumulator::EmitRow(const Slot* record) {
  topology::Values row;
  row.reserve(plan_.select.size());
  for (std::size_t f = 0; f < plan_.select.size(); ++f) {
    const SelectPlan& sel = plan_.select[f];
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
  anchors_.clear();
  for (std::size_t i = 0; i < plan_.width; ++i) {
    if (record[i].held != nullptr) anchors_.push_back(*record[i].held);
  }
  out_->EmitAnchoredToRows(output_stream_, anchors_, std::move(row));
}

void JoinAccumulator::BeginMatches(const Slot* record, std::size_t last) {
  prefix_buffer_.clear();
  for (std::size_t f = 0; f < plan_.select.size(); ++f) {
    const SelectPlan& sel = plan_.select[f];
    if (sel.input == last) continue;
    const Slot& slot = record[sel.input];
    AppendSelected(slot.held == nullptr ? nullptr
                                        : FindPath(slot.row.fields, slot.row.field_count,
                                                   slot.plan->select_index[f], sel.path),
                   prefix_buffer_);
  }
  prefix_ = reinterpret_cast<const uint8_t*>(prefix_buffer_.data());
  anchors_.clear();
  for (std::size_t i = 0; i < last; ++i) {
    if (record[i].held != nullptr) anchors_.push_back(*record[i].held);
  }
}

void JoinAccumulator::BeginMatches(const uint8_t* values, const HeldRow& held) {
  prefix_ = values;
  anchors_.clear();
  anchors_.push_back(held);
}

// Called once per row, in order: the record's select values and the match's picks, unpacked.
void JoinAccumulator::MatchRows::Fill(std::size_t, topology::Values& row) {
  row.reserve(self->select_from_last_.size());
  const uint8_t* values = self->prefix_;
  for (const uint8_t from_last : self->select_from_last_) {
    UnpackSelectedAppend(from_last != 0 ? picks : values, row);
  }
}

std::size_t JoinAccumulator::MatchRows::FillCells(std::size_t, topology::RowBatch& out) {
  const uint8_t* values = self->prefix_;
  for (const uint8_t from_last : self->select_from_last_) {
    UnpackSelectedCell(from_last != 0 ? picks : values, out);
  }
  return self->select_from_last_.size();
}

void JoinAccumulator::EmitMatches(std::size_t j, const JoinedTable::Group& group) {
  JoinedTable& table = tables_[j];
  if (Pads(plan_.clauses[j].type)) {
    std::fill_n(table.matched.begin() + group.start, group.length, 1);
  }
  match_rows_.self = this;
  match_rows_.picks = reinterpret_cast<const uint8_t*>(table.picks.data()) + group.pick_start;
  out_->EmitRowsAnchoredToRows(output_stream_, anchors_,
                               {table.rows.data() + group.start, group.length}, match_rows_);
}

}  // namespace tempest::bolts

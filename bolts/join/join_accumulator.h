#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bolts/join/join_plan.h"
#include "bolts/join/joined_table.h"
#include "bolts/windowing/packed_windowed_bolt.h"
#include "tempest/joins.h"

namespace tempest::bolts {

// Storm's JoinAccumulator: one window of a JoinBolt, joined in three steps. Build hashes every
// joined input's rows on its key (JoinedTable) and takes the first input's rows as records, in
// window order. Probe(j) joins the records with input j, in declaration order, each record
// looking up the key of the input it is joined `with`; the last join emits its rows as it finds
// them, the others make the records of the next. Pad(j) adds input j's rows that matched no
// record, padded with nulls for the inputs before it (right and full joins). Capacity is kept
// between windows. Single-threaded.
class JoinAccumulator {
 public:
  JoinAccumulator(const JoinBoltConfig& config, JoinPlan plan, PackedWindowCollector& out);

  const JoinPlan& plan() const noexcept { return plan_; }

  // Starts a window: every row of a joined input into its input's table, the first input's rows
  // noted as records. A row of an input the join does not name is reported once and ignored.
  void Build(const PackedWindow& window);
  // A join of one input: each record emits its select values alone.
  void EmitRecords();
  // The records so far joined with input j (1 <= j < width), by its clause's type: inner keeps
  // matches, left and full also unmatched records (nulls for j). A record with a null probe key
  // is dropped, as Storm does, unless keep_null_probe_keys.
  void Probe(std::size_t j);
  // Input j's rows that no record matched, in window order, padded for the inputs before j.
  void Pad(std::size_t j);

 private:
  using Slot = window_join::Slot;
  using JoinedTable = window_join::JoinedTable;

  // The next row of the window: its input noted, a joined input's row added to its table, a
  // first-input row's probe prepared (two inputs).
  void Index(const HeldRow& held, const PackedRow& r);
  // The plan of the row's input (nullptr: the join does not name it; reported once).
  const InputPlan* PlanOf(const HeldRow& held, const PackedRow& r);
  // Each joined row to its place in its table, with its picks.
  void PlaceRows();
  // The picks of a row of the last join's input, packed, appended to `out`.
  void AppendPicks(const PackedRow& r, const InputPlan& p, std::string& out) const;

  // The record of the first input's row i (in `record_`).
  const Slot* FirstRecord(std::size_t i);
  // One record of join j: looks up its key and emits or keeps what it joins.
  void ProbeRecord(std::size_t j, const Slot* record);
  // Two inputs: the probes Index prepared, no row read unless emitted unmatched.
  void ProbePrepared();
  // A record and table j's row `joined` (nullptr: nulls): emitted by the last join, else kept
  // as a record of the next.
  void Out(std::size_t j, const Slot* record, const Slot* joined);
  // Table j's row at position p (`full`: its row parsed too, for reading its values).
  Slot JoinedSlot(const JoinedTable& table, uint32_t p, bool full) const;
  // The group g of table j, or nullptr: none, or one with no rows (a probe's key added by Index).
  static const JoinedTable::Group* MatchedGroup(const JoinedTable& table, int32_t g);
  // The last join: one row per row of `group`.
  void EmitMatches(std::size_t j, const JoinedTable::Group& group);

  // One output row: `select`ed from the record's rows and anchored to exactly them.
  void EmitRow(const Slot* record);
  // The matches of one record in the last join share everything but the last input's values
  // and anchor: those values are found once (BeginMatches) and kept packed, and each match
  // (MatchRows) unpacks them and its picks.
  void BeginMatches(const Slot* record, std::size_t last);
  // As BeginMatches for a first-input row (two inputs) whose select values Index packed.
  void BeginMatches(const uint8_t* values, const HeldRow& held);
  struct MatchRows final : topology::RowFiller {
    const JoinAccumulator* self = nullptr;
    const uint8_t* picks = nullptr;
    void Fill(std::size_t, topology::Values& row) override;
    bool FillsCells() const noexcept override { return true; }
    std::size_t FillCells(std::size_t, topology::RowBatch& out) override;
  };

  bool keep_null_probe_keys_ = false;
  std::string_view output_stream_;
  JoinPlan plan_;
  PackedWindowCollector* out_ = nullptr;
  JoinSelector selector_ = JoinSelector::kSource;

  const PackedWindow* window_ = nullptr;  // the window being joined
  PackedWindow::Rows rows_;
  std::vector<JoinedTable> tables_;           // by input position; [0] unused (the probe side)
  std::vector<Slot> records_, next_records_;  // flat, `width` per record (joins before the last)
  std::vector<Slot> record_, row_;            // one record, one output row
  std::vector<const InputPlan*> by_origin_;   // the window's row origins: their input's plan
  std::vector<uint8_t> position_of_;          // by window row: its input's position + 1, or 0
  std::vector<std::string> reported_;         // unknown inputs already reported
  std::vector<HeldRow> anchors_;
  // Per select item: whether the last join's input supplies it (its "picks").
  std::vector<uint8_t> select_from_last_;
  std::size_t picks_per_row_ = 0;    // select items of the last join's input
  std::size_t prefix_per_row_ = 0;   // the others
  const uint8_t* prefix_ = nullptr;  // BeginMatches: the record's other select values, packed
  std::string prefix_buffer_;        // (where BeginMatches packs them from the record's rows)
  window_join::KeyScratch key_;
  MatchRows match_rows_;

  std::string picks_in_;  // the last join's input's picks, by row in window order
  // Two inputs: per first-input row in window order, its key's group in the joined table (-1:
  // no key) and its select values packed, so the probe reads no row.
  std::vector<int32_t> probe_group_;
  std::string prefixes_;
};

}  // namespace tempest::bolts

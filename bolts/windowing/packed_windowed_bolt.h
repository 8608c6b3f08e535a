#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "bolts/windowing/packed_row.h"
#include "bolts/windowing/row_arena.h"
#include "bolts/windowing/windowed_bolt.h"

namespace tempest::bolts {

// Where a packed row came from: the stream's schema and the task that emitted it.
struct RowOrigin {
  const topology::StreamSchema* schema = nullptr;
  int task = 0;
};

// One activation of a packed window: its rows in arrival order (valid only during Execute).
class PackedWindow {
 public:
  using Rows = std::span<const HeldRow>;
  PackedWindow(Rows rows, const RowArena& arena, const std::vector<RowOrigin>& origins,
               std::optional<int64_t> start, int64_t end) noexcept
      : rows_(rows), arena_(&arena), origins_(&origins), start_(start), end_(end) {}

  Rows Get() const noexcept { return rows_; }
  PackedRow Row(const HeldRow& r) const noexcept { return PackedRow::Parse(arena_->Data(r)); }
  const RowOrigin& Origin(uint32_t origin) const noexcept { return (*origins_)[origin]; }
  // The row as a Tuple (values, stream and source; no ack metadata): for messages.
  topology::Tuple Unpack(const HeldRow& r) const;
  std::optional<int64_t> StartTimestamp() const noexcept { return start_; }
  int64_t EndTimestamp() const noexcept { return end_; }

 private:
  Rows rows_;
  const RowArena* arena_;
  const std::vector<RowOrigin>* origins_;
  std::optional<int64_t> start_;
  int64_t end_;
};

// The collector a PackedWindowedBolt emits through: besides the OutputCollector calls, an emit
// anchored to rows of the current window. (An emit without anchors is anchored to every row of
// the window, as for WindowedBolt.)
class PackedWindowCollector : public topology::OutputCollector {
 public:
  virtual void EmitAnchoredToRows(std::string_view stream, std::span<const HeldRow> rows,
                                  topology::Values&& values) = 0;
  // `count` rows, row i built by filler.Fill(i, values) and anchored to the rows `common` and
  // `each[i]`: as many EmitAnchoredToRows calls, but when no row of the window is tracked
  // (acking off) they go out as one OutputCollector::EmitRows.
  virtual void EmitRowsAnchoredToRows(std::string_view stream, std::span<const HeldRow> common,
                                      std::span<const HeldRow> each,
                                      topology::RowFiller& filler) = 0;
};

// A windowed bolt whose window holds its tuples packed (packed_row.h) in a RowArena, about 70
// bytes per tuple of four small fields against ~250 as Tuples, and reads them in place. What it
// gives up: Tuple views of the window, and GetNew()/GetExpired() (it sees each window whole,
// and tuples are acked as they leave). Acking is as for WindowedBolt. Run it with
// AdaptWindowedBolt.
class PackedWindowedBolt {
 public:
  virtual ~PackedWindowedBolt() = default;
  virtual void Prepare(const topology::TopologyContext& context, PackedWindowCollector& collector) {
    (void)context;
    (void)collector;
  }
  virtual void Execute(const PackedWindow& window) = 0;
  // Which fields of the tuples on `stream` Execute reads, by index (1: read); empty: all. The
  // others are held as null: not packed, not stored, not stepped over when a row is read. Asked
  // once per (stream, source task) a tuple arrives from, after Prepare.
  virtual std::vector<uint8_t> FieldsRead(const topology::StreamSchema& stream) const {
    (void)stream;
    return {};
  }
  virtual void OnEndOfStream() {}
  virtual void Cleanup() {}
  virtual void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const = 0;
};

// As AdaptWindowedBolt for a WindowedBolt (the same checks, windows, watermarks, late streams
// and acking).
std::unique_ptr<topology::Bolt> AdaptWindowedBolt(std::unique_ptr<PackedWindowedBolt> bolt,
                                                  WindowConfig config, topology::Fields late_fields,
                                                  std::vector<LateRoute> routes,
                                                  WindowClock clock = SystemMillis);

}  // namespace tempest::bolts

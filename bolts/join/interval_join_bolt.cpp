#include "bolts/join/interval_join_bolt.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "bolts/join/field_selector.h"
#include "bolts/join/join_key.h"
#include "bolts/join/join_plan.h"
#include "bolts/windowing/event_time_input.h"
#include "bolts/windowing/schema_cache.h"
#include "bolts/windowing/window_config.h"
#include "topology/fields.h"
#include "topology/output_collector.h"
#include "topology/row_batch.h"
#include "topology/saturating.h"
#include "topology/topology_context.h"

namespace tempest::bolts {

using topology::Tuple;
using topology::Value;

IntervalBounds EffectiveBounds(const IntervalJoinBoltConfig& c) noexcept {
  return {c.lower_inclusive ? c.lower_bound_ms : topology::SaturatingAdd(c.lower_bound_ms, 1),
          c.upper_inclusive ? c.upper_bound_ms : topology::SaturatingSub(c.upper_bound_ms, 1)};
}

namespace {

constexpr const char* kPairTime = "_ts";

// The interval join as the N-way JoinBolt plans it: left is `from`, right joins it.
JoinBoltConfig AsJoinConfig(const IntervalJoinBoltConfig& c) {
  JoinBoltConfig j;
  j.selector = c.selector;
  j.from = {c.left.name, c.left.key};
  j.joins.push_back({c.type, c.right.name, c.right.key, c.left.name});
  j.select = c.select;
  return j;
}

bool IsPairTime(const FieldSelector& s) {
  return s.name.empty() && s.path.size() == 1 && s.path[0] == kPairTime;
}

// The select items without the pseudo-field `_ts`, and where `_ts` was.
std::vector<FieldSelector> RealSelect(const std::vector<FieldSelector>& all) {
  std::vector<FieldSelector> out;
  for (const FieldSelector& s : all) {
    if (!IsPairTime(s)) out.push_back(s);
  }
  return out;
}

const std::string& TimestampFieldOf(const IntervalJoinBoltConfig& c, const IntervalJoinInput& in) {
  return in.timestamp_field.empty() ? c.timestamp_field : in.timestamp_field;
}

}  // namespace

void ValidateIntervalJoinBoltConfig(const IntervalJoinBoltConfig& c) {
  if (c.left.name.empty()) throw std::invalid_argument("the join needs a left input (left.name)");
  if (c.right.name.empty()) {
    throw std::invalid_argument("the join needs a right input (right.name)");
  }
  ValidateJoinClauses(AsJoinConfig(c).from, AsJoinConfig(c).joins);
  if (c.select.find_first_not_of(" \t,") == std::string::npos) {
    throw std::invalid_argument(
        "select is required: the output fields, e.g. \"left_name:field, right_name:field AS "
        "alias, _ts\"");
  }
  ParseSelect(c.select);
  if (c.lower_bound_ms > c.upper_bound_ms) {
    throw std::invalid_argument(
        fmt::format("lowerBound <= upperBound must be fulfilled (lower_bound_ms {} > "
                    "upper_bound_ms {})",
                    c.lower_bound_ms, c.upper_bound_ms));
  }
  const IntervalBounds b = EffectiveBounds(c);
  if (b.lower > b.upper) {
    throw std::invalid_argument(
        fmt::format("the interval {}{}, {}{} holds no time: no pair could ever match",
                    c.lower_inclusive ? "[" : "(", c.lower_bound_ms, c.upper_bound_ms,
                    c.upper_inclusive ? "]" : ")"));
  }
  for (const IntervalJoinInput* in : {&c.left, &c.right}) {
    if (TimestampFieldOf(c, *in).empty()) {
      throw std::invalid_argument(
          fmt::format("\"{}\" has no event time: set timestamp_field (in its side's map, or for "
                      "both at the bolt level)",
                      in->name));
    }
  }
  ValidateWatermarkSettings(c.lag_ms, c.watermark_interval_ms, c.idle_timeout_ms);
  for (const std::string* late : {&c.late_stream, &c.left.late_stream, &c.right.late_stream}) {
    if (!late->empty() && *late == c.output_stream) {
      throw std::invalid_argument(fmt::format(
          "late stream \"{}\" is also the output stream: late tuples and joined rows have "
          "different fields",
          *late));
    }
  }
}

void ValidateIntervalJoinFitsTopology(const IntervalJoinBoltConfig& c,
                                      const topology::TopologyConfig& topo) {
  if (topo.acker_executors == 0) return;  // nothing is tracked, so nothing can time out
  const IntervalBounds b = EffectiveBounds(c);
  const int64_t stay = std::max<int64_t>({b.upper, topology::SaturatingNegate(b.lower), 0});
  const int64_t retention =
      topology::SaturatingAdd(topology::SaturatingAdd(stay, c.lag_ms), c.watermark_interval_ms);
  const int64_t timeout_ms = static_cast<int64_t>(topo.message_timeout_secs) * 1000;
  if (retention > timeout_ms) {
    throw std::invalid_argument(fmt::format(
        "tuples stay in the join up to {} ms (bound {} + lag_ms {} + watermark_interval_ms {}), "
        "more than topology.message.timeout.secs value {} ms: they would time out and be "
        "replayed while still held; raise topology.message.timeout.secs or narrow the bounds",
        retention, stay, c.lag_ms, c.watermark_interval_ms, timeout_ms));
  }
}

void ValidateIntervalJoinInputs(
    const IntervalJoinBoltConfig& c, int parallelism,
    const std::vector<std::pair<topology::GlobalStreamId, topology::Fields>>& inputs,
    const std::vector<topology::GroupingSpec>& groupings) {
  const JoinBoltConfig j = AsJoinConfig(c);
  ValidateJoinInputs(j, parallelism, inputs, groupings);
  for (const auto& [stream, fields] : inputs) {
    const std::string& name = JoinInputName(c.selector, stream);
    const IntervalJoinInput& in = name == c.left.name ? c.left : c.right;
    const std::string& ts = TimestampFieldOf(c, in);
    if (!fields.Contains(ts)) {
      throw std::invalid_argument(
          fmt::format("timestamp_field \"{}\" is not declared by \"{}\" (declared: {})", ts, name,
                      fields.ToString()));
    }
  }
  PlanJoin(j, inputs, RealSelect(ParseSelect(c.select)));
}

// The bolt proper: its per-schema lookups, watermark, state and the sink the state calls.
class IntervalJoinBolt::Impl final : private IntervalJoinRowSink {
 public:
  Impl(const IntervalJoinBoltConfig& config, const topology::TopologyContext& context,
       topology::OutputCollector& out, WindowClock& clock)
      : config_(config), out_(out), clock_(clock), state_(EffectiveBounds(config), *this) {
    component_ = context.GetThisComponentId();
    task_ = context.GetThisTaskId();
    std::vector<std::pair<topology::GlobalStreamId, topology::Fields>> inputs;
    std::vector<topology::GroupingSpec> groupings;
    const topology::ComponentSpec* self =
        topology::ContextAccess::Topology(context).Find(component_);
    for (const topology::InputSpec& in : self->inputs) {
      inputs.emplace_back(in.source,
                          context.GetComponentOutputFields(in.source.component, in.source.stream));
      groupings.push_back(in.grouping);
    }
    ValidateIntervalJoinInputs(config_, self->parallelism, inputs, groupings);
    const std::vector<FieldSelector> all = ParseSelect(config_.select);
    plan_ = PlanJoin(AsJoinConfig(config_), inputs, RealSelect(all));
    for (const FieldSelector& s : all) select_.push_back(IsPairTime(s) ? -1 : 0);
    int real = 0;
    for (int& s : select_) {
      if (s == 0) s = real++;
    }
    preserved_[0] = config_.type == JoinType::kLeft || config_.type == JoinType::kFull;
    preserved_[1] = config_.type == JoinType::kRight || config_.type == JoinType::kFull;
    event_time_.emplace(
        context, out_, clock_, clock_(),
        WatermarkSettings{config_.lag_ms, config_.watermark_interval_ms, config_.idle_timeout_ms},
        [this](const topology::GlobalStreamId& id) { return RouteOf(id); },
        [this](int64_t watermark) {
          state_.Advance(watermark);
          watermark_moved_ = true;
        });
    max_pending_ = static_cast<std::size_t>(context.GetTopologyConfig().max_spout_pending);
    acking_ = context.GetTopologyConfig().acker_executors != 0;
  }

  void Handle(const Tuple& input) {
    const Source& src = SourceOf(input);
    if (src.side < 0) {
      Unknown(input);
      return;
    }
    int64_t ts = 0;
    if (!event_time_->Timestamp(input, ts)) return;
    if (flushed_) {
      // A replay after the end of input: it joins what comes with it and leaves at once.
      Store(input, src, ts);
      state_.Drain();
      return;
    }
    event_time_->Admit(input, ts, [&] { Store(input, src, ts); });
  }

  // A batch row of one of the join's streams with a key joins as a packed row, without a
  // Tuple (an integer key without a Value either); the rest (another stream, a null key, a
  // replay after the end) go the tuple way.
  void Handle(const BatchInput& in) {
    const Source& src = SourceOf(in.schema(), in.source_task());
    if (src.side < 0 || flushed_) {
      in.out.ExecuteAsTuple(in.row);
      return;
    }
    const std::vector<int>& index = src.plan->key_index;
    const std::vector<FieldSelector>& key = plan_.keys[src.plan->position];
    if (IntKey int_key; ExtractIntKey(in.row, index, key, int_key)) {
      AddRow(in, SideOf(src), int_key);
    } else if (ExtractKey(in.row, index, key, key_values_, key_)) {
      AddRow(in, SideOf(src), key_);
    } else {
      in.out.ExecuteAsTuple(in.row);
    }
  }

  // The row, if not late, joins and is held under `key`.
  template <class Key>
  void AddRow(const BatchInput& in, JoinSide side, const Key& key) {
    event_time_->Take(in, [&](int64_t ts) {
      if constexpr (std::is_same_v<Key, IntKey>) {
        state_.Add(side, key, ts, in.row, in.source_task());
      } else {
        state_.Add(side, key, HashKey(key), ts, in.row, in.source_task());
      }
      WarnIfHeldTooMany();
    });
  }

  void OnTick() {
    const int64_t now = clock_();
    if (!flushed_) event_time_->OnTick(now);
    ReportState(now);
  }

  void OnSourceEnded(const std::string& component) {
    if (!flushed_) event_time_->OnSourceEnded(component);
    ReportIfMoved();
  }

  void OnEndOfStream() {
    if (flushed_) return;
    state_.Drain();
    flushed_ = true;
    event_time_->OnEndOfStream();
    ReportState(clock_());  // a finished run shows the final values
  }

  // Sends the output rows StageRow kept: after each input, batch, tick or flush.
  void FlushStaged() {
    if (staged_.empty()) return;
    struct Cleared {
      topology::RowBatch& rows;
      ~Cleared() { rows.Clear(); }
    } cleared{staged_};
    out_rows_->EmitRows(output_stream_, staged_.size(), staged_rows_);
  }

  // A batch's rows go through `out` (untracked held rows that leave are acked at EndBatch).
  void BeginBatch(topology::BatchCollector& out) noexcept { batch_ = &out; }
  void EndBatch() {
    if (untracked_acks_ > 0) batch_->AckUntracked(std::exchange(untracked_acks_, 0));
    batch_ = nullptr;
  }

  // After an input or a batch: the gauges, if the watermark moved (rows may have left).
  void ReportIfMoved() {
    if (watermark_moved_) ReportState(clock_());
  }

 private:
  // The gauges (docs/metrics.md): the rows each side holds, and the watermark. On ticks, after
  // an input or batch that moved the watermark, and at the end; not per tuple, as ReportGauge
  // takes a lock.
  void ReportState(int64_t now) {
    watermark_moved_ = false;
    out_.ReportGauge("state rows left", state_.size(JoinSide::kLeft));
    out_.ReportGauge("state rows right", state_.size(JoinSide::kRight));
    event_time_->ReportWatermark(now);
  }

  // What is known of one input schema.
  struct Source {
    int side = -1;  // 0 left, 1 right, -1 not an input of the join
    const InputPlan* plan = nullptr;
  };

  const Source& SourceOf(const Tuple& t) {
    return schemas_.Get(t, [this](const Tuple& u) { return MakeSource(u); });
  }
  const Source& SourceOf(const topology::StreamSchema* schema, int task) {
    return schemas_.Get(schema, [&] {
      topology::TupleAccess::Rebind(probe_, schema, task);
      return MakeSource(probe_);
    });
  }
  static JoinSide SideOf(const Source& src) noexcept {
    return src.side == 0 ? JoinSide::kLeft : JoinSide::kRight;
  }

  Source MakeSource(const Tuple& t) const {
    Source s;
    const topology::GlobalStreamId id = t.GetSourceGlobalStreamId();
    const std::string& name = JoinInputName(config_.selector, id);
    s.plan = plan_.Find(id);
    if (s.plan != nullptr) s.side = name == config_.left.name ? 0 : 1;
    return s;
  }

  // A side's event time and late stream (asked only of the join's inputs).
  EventTimeRoute RouteOf(const topology::GlobalStreamId& id) const {
    const bool left = JoinInputName(config_.selector, id) == config_.left.name;
    const IntervalJoinInput& in = left ? config_.left : config_.right;
    return {TimestampFieldOf(config_, in),
            in.late_stream.empty() ? config_.late_stream : in.late_stream};
  }

  // The plan of a row of `side`: most sides have one stream, so the last one is kept (and found
  // inline: asked for both rows of every output row).
  const InputPlan& PlanOf(const IntervalJoinRow& r, int side) {
    if (r.schema() != last_schema_[side]) [[unlikely]]
      FindPlan(r, side);
    return *last_plan_[side];
  }
  void FindPlan(const IntervalJoinRow& r, int side) {
    last_schema_[side] = r.schema();
    last_plan_[side] = SourceOf(r.schema(), r.source_task()).plan;
  }

  void Unknown(const Tuple& t) {
    const std::string name = JoinInputName(config_.selector, t.GetSourceGlobalStreamId());
    if (std::find(reported_.begin(), reported_.end(), name) == reported_.end()) {
      reported_.push_back(name);
      out_.ReportError(fmt::format(
          "tuple {} comes from \"{}\", which the join does not name; acked and dropped (and so "
          "are the next ones)",
          t.ToString(), name));
    }
    out_.Ack(t);
    out_.ReportDropped("unknown_stream");
  }

  void Store(const Tuple& input, const Source& src, int64_t ts) {
    if (!ExtractKey(input, src.plan->key_index, plan_.keys[src.plan->position], key_)) {
      // A null key matches nothing: a preserved side's tuple is padded at once.
      if (preserved_[src.side]) {
        const IntervalJoinRow row(input);
        EmitRow(src.side == 0 ? &row : nullptr, src.side == 1 ? &row : nullptr, ts);
      } else {
        out_.ReportDropped("null_key");
      }
      out_.Ack(input);
      return;
    }
    state_.Add(SideOf(src), key_, HashKey(key_), ts, input);
    WarnIfHeldTooMany();
  }

  void WarnIfHeldTooMany() {
    if (!acking_ || max_pending_ == 0 || warned_pending_) return;
    const std::size_t held = state_.size(JoinSide::kLeft) + state_.size(JoinSide::kRight);
    if (held >= max_pending_) {
      warned_pending_ = true;
      spdlog::warn(
          "{} task {}: holds {} tuples, topology.max.spout.pending is {}: the spouts may stall "
          "until held tuples time out (raise it above what the interval holds)",
          component_, task_, held, max_pending_);
    }
  }

  // An untracked held row keeps only the fields `select` takes from its side: output rows,
  // padded or not, read nothing else of it (its key and time are held beside it).
  std::vector<uint8_t> FieldsRead(const topology::StreamSchema& stream) const override {
    return bolts::FieldsRead(plan_, stream, false);
  }

  // The state's results.
  void JoinedRows(const IntervalJoinRow& left, const IntervalJoinRow& right, int64_t ts) override {
    EmitRow(&left, &right, ts);
  }
  void LeftRow(JoinSide side, const IntervalJoinRow& row, int64_t ts, bool matched) override {
    const int s = side == JoinSide::kLeft ? 0 : 1;
    if (!matched && preserved_[s]) EmitRow(s == 0 ? &row : nullptr, s == 1 ? &row : nullptr, ts);
    Ack(row);
  }

  // A held row is acked through a scratch tuple: whole when it is tracked (an ack is the row to
  // whoever receives it), else its stream only. An untracked ack is a count: during a batch the
  // rows leaving are counted and acked together at its end (EndBatch).
  void Ack(const IntervalJoinRow& row) {
    if (row.added() != nullptr) {
      out_.Ack(*row.added());
    } else if (row.tracked()) {
      row.Unpack(acked_);
      out_.Ack(acked_);
    } else if (batch_ != nullptr) {
      ++untracked_acks_;
    } else {
      topology::TupleAccess::Rebind(untracked_, row.schema(), row.source_task());
      out_.Ack(untracked_);
    }
  }

  // Null tuples are the padded side. An output of untracked rows is staged as cells and sent
  // with the others of the same input batch in one EmitRows (StageRow); one of tracked rows is
  // anchored to stand-ins carrying the rows' ack metadata (the tuple being added is the
  // runtime's, a held row is packed), and what the emit adds to their ack values goes back into
  // the rows.
  void EmitRow(const IntervalJoinRow* left, const IntervalJoinRow* right, int64_t ts) {
    output_.rows[0] = left;
    output_.rows[1] = right;
    output_.ts = ts;
    const bool tracked =
        (left != nullptr && left->tracked()) || (right != nullptr && right->tracked());
    if (!tracked && out_rows_ != nullptr) {
      StageRow();
      return;
    }
    FlushStaged();  // the output stream keeps its order
    topology::Values row;
    output_.Fill(0, row);
    std::size_t n = 0;
    for (int i = 0; i < 2; ++i) {
      if (output_.rows[i] == nullptr) continue;
      output_.rows[i]->LoadAnchor(anchor_tuples_[i]);
      anchors_[n++] = &anchor_tuples_[i];
    }
    out_.Emit(output_stream_, topology::Anchors(anchors_, n), std::move(row));
    for (int i = 0; i < 2; ++i) {
      if (output_.rows[i] != nullptr) output_.rows[i]->FoldAck(anchor_tuples_[i]);
    }
  }

  // Output rows are mostly one or none per input: sent one EmitRows each, the call (stream,
  // route, destination batch) cost more than building the row. They are built as cells into
  // `staged_` instead (their held rows may leave before the batch ends) and sent together at the
  // end of each input batch, tick or flush (FlushStaged), or when kStagedRows wait.
  void StageRow() {
    staged_.EndRow(nullptr, output_.FillCells(0, staged_), 0);
    if (staged_.size() >= kStagedRows) FlushStaged();
  }

  static constexpr std::size_t kStagedRows = 256;
  struct StagedRows final : topology::RowFiller {
    explicit StagedRows(const topology::RowBatch& rows) noexcept : rows(rows) {}
    const topology::RowBatch& rows;
    void Fill(std::size_t i, topology::Values& row) override { rows[i].LoadValues(row); }
    bool FillsCells() const noexcept override { return true; }
    std::size_t FillCells(std::size_t i, topology::RowBatch& out) override {
      const topology::RowRef r = rows[i];
      out.AppendCells(r);
      return r.size();
    }
    const topology::RowBatch* BuiltRows() const noexcept override { return &rows; }
  };

  // One output row: the selected fields of its left and right rows (null: padded) and `_ts`.
  struct OutputRow final : topology::RowFiller {
    explicit OutputRow(Impl* impl) noexcept : self(impl) {}
    Impl* self;
    const IntervalJoinRow* rows[2] = {nullptr, nullptr};
    int64_t ts = 0;

    void Fill(std::size_t, topology::Values& row) override {
      row.reserve(self->select_.size());
      Select([&](int64_t t) { row.emplace_back(t); }, [&] { row.emplace_back(); },
             [&](const IntervalJoinRow& r, int index, const std::vector<std::string>& path) {
               r.AppendValue(index, path, row);
             });
    }
    bool FillsCells() const noexcept override { return true; }
    std::size_t FillCells(std::size_t, topology::RowBatch& out) override {
      Select([&](int64_t t) { out.AddInt(t); }, [&] { out.AddNull(); },
             [&](const IntervalJoinRow& r, int index, const std::vector<std::string>& path) {
               r.AppendCell(index, path, out);
             });
      return self->select_.size();
    }
    // Per output field in order: time(ts) for `_ts`, null() for a padded side, else
    // field(row, index, path).
    template <class Time, class Null, class Field>
    void Select(Time time, Null null, Field field) const {
      const InputPlan* plans[2] = {rows[0] != nullptr ? &self->PlanOf(*rows[0], 0) : nullptr,
                                   rows[1] != nullptr ? &self->PlanOf(*rows[1], 1) : nullptr};
      for (const int s : self->select_) {
        if (s < 0) {
          time(ts);
          continue;
        }
        const SelectPlan& sel = self->plan_.select[static_cast<std::size_t>(s)];
        const int side = sel.input == 0 ? 0 : 1;
        if (rows[side] == nullptr) {
          null();
          continue;
        }
        field(*rows[side], plans[side]->select_index[static_cast<std::size_t>(s)], sel.path);
      }
    }
  };

  const IntervalJoinBoltConfig& config_;
  const std::string_view output_stream_ = topology::EmitStreamName(config_.output_stream);
  topology::OutputCollector& out_;
  topology::RowEmitter* out_rows_ = topology::RowEmitterOf(out_);
  OutputRow output_{this};
  topology::RowBatch staged_;
  StagedRows staged_rows_{staged_};
  WindowClock& clock_;
  IntervalJoinState state_;
  JoinPlan plan_;
  std::vector<int> select_;  // per output field: index into plan_.select, -1 for `_ts`
  bool preserved_[2] = {false, false};
  std::string component_;
  int task_ = 0;
  SchemaCache<Source> schemas_;
  const topology::StreamSchema* last_schema_[2] = {nullptr, nullptr};
  const InputPlan* last_plan_[2] = {nullptr, nullptr};
  std::vector<std::string> reported_;
  std::optional<EventTimeInput> event_time_;
  KeyRef key_;
  topology::Values key_values_;  // a batch row's key parts, read from its cells
  Tuple probe_;                  // a schema and task as a Tuple, to look its source up
  const Tuple* anchors_[2] = {nullptr, nullptr};
  Tuple anchor_tuples_[2];  // stand-ins for the rows an output is anchored to
  Tuple acked_;             // a tracked held row, unpacked to be acked
  Tuple untracked_;         // the stream of an untracked held row (no values, no anchors)
  topology::BatchCollector* batch_ = nullptr;  // during ExecuteBatch
  std::size_t untracked_acks_ = 0;             // untracked held rows let go during it
  std::size_t max_pending_ = 0;
  bool acking_ = true;
  bool warned_pending_ = false;
  bool flushed_ = false;
  bool watermark_moved_ = false;  // since the gauges were last reported
};

IntervalJoinBolt::IntervalJoinBolt(IntervalJoinBoltConfig config, topology::Fields left_fields,
                                   topology::Fields right_fields, WindowClock clock)
    : config_(std::move(config)),
      late_fields_{std::move(left_fields), std::move(right_fields)},
      clock_(std::move(clock)) {
  ValidateIntervalJoinBoltConfig(config_);
  const std::string* late[2] = {
      config_.left.late_stream.empty() ? &config_.late_stream : &config_.left.late_stream,
      config_.right.late_stream.empty() ? &config_.late_stream : &config_.right.late_stream};
  for (int s = 0; s < 2; ++s) {
    if (!late[s]->empty() && late_fields_[s].size() == 0) {
      throw std::invalid_argument(
          fmt::format("late stream \"{}\" needs the fields of \"{}\" to be declared with", *late[s],
                      s == 0 ? config_.left.name : config_.right.name));
    }
  }
  if (!late[0]->empty() && *late[0] == *late[1] && late_fields_[0] != late_fields_[1]) {
    throw std::invalid_argument(
        fmt::format("late stream \"{}\" is shared by inputs with different fields ({} and {})",
                    *late[0], late_fields_[0].ToString(), late_fields_[1].ToString()));
  }
}

IntervalJoinBolt::~IntervalJoinBolt() = default;

void IntervalJoinBolt::Prepare(const topology::TopologyContext& context,
                               topology::OutputCollector& collector) {
  ValidateIntervalJoinFitsTopology(config_, context.GetTopologyConfig());
  impl_ = std::make_unique<Impl>(config_, context, collector, clock_);
}

void IntervalJoinBolt::Execute(const Tuple& input) {
  impl_->Handle(input);
  impl_->FlushStaged();
  impl_->ReportIfMoved();
}
// The state keeps a packed copy, so an owned tuple is not moved from.
void IntervalJoinBolt::ExecuteOwned(Tuple& input) { Execute(input); }
void IntervalJoinBolt::ExecuteBatch(const topology::RowBatch& rows, topology::BatchCollector& out) {
  impl_->BeginBatch(out);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const topology::RowRef row = rows[i];
    impl_->Handle(BatchInput{row, out});
  }
  impl_->EndBatch();
  impl_->FlushStaged();
  impl_->ReportIfMoved();
}
void IntervalJoinBolt::OnSourceEnded(const std::string& component) {
  impl_->OnSourceEnded(component);
  impl_->FlushStaged();
}
void IntervalJoinBolt::OnEndOfStream() {
  impl_->OnEndOfStream();
  impl_->FlushStaged();
}
void IntervalJoinBolt::OnTick() {
  impl_->OnTick();
  impl_->FlushStaged();
}

std::chrono::milliseconds IntervalJoinBolt::TickInterval() const {
  int64_t period = 0;
  for (const int64_t p : {config_.watermark_interval_ms, config_.idle_timeout_ms}) {
    if (p > 0 && (period == 0 || p < period)) period = p;
  }
  // Coarse periods still get a prompt look, as the windowed bolts do.
  if (period > 100) period = 100;
  return std::chrono::milliseconds(period);
}

void IntervalJoinBolt::DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const {
  std::vector<std::string> names;
  for (const FieldSelector& f : ParseSelect(config_.select)) names.push_back(f.output_name);
  declarer.DeclareStream(config_.output_stream, topology::Fields(std::move(names)));
  std::vector<std::string> declared;
  const std::string* late[2] = {
      config_.left.late_stream.empty() ? &config_.late_stream : &config_.left.late_stream,
      config_.right.late_stream.empty() ? &config_.late_stream : &config_.right.late_stream};
  for (int s = 0; s < 2; ++s) {
    if (late[s]->empty()) continue;
    if (std::find(declared.begin(), declared.end(), *late[s]) != declared.end()) continue;
    declarer.DeclareStream(*late[s], late_fields_[s]);
    declared.push_back(*late[s]);
  }
}

// Builder.

IntervalJoinBoltBuilder::IntervalJoinBoltBuilder(JoinSelector selector, IntervalJoinInput left,
                                                 IntervalJoinInput right) {
  config_.selector = selector;
  config_.left = std::move(left);
  config_.right = std::move(right);
}

IntervalJoinBoltBuilder& IntervalJoinBoltBuilder::Between(int64_t lower_ms, int64_t upper_ms) {
  if (lower_ms > upper_ms) {
    throw std::invalid_argument(
        "An upper bound needs to be greater than or equal to a lower bound.");
  }
  config_.lower_bound_ms = lower_ms;
  config_.upper_bound_ms = upper_ms;
  return *this;
}
IntervalJoinBoltBuilder& IntervalJoinBoltBuilder::LowerBoundExclusive() {
  config_.lower_inclusive = false;
  return *this;
}
IntervalJoinBoltBuilder& IntervalJoinBoltBuilder::UpperBoundExclusive() {
  config_.upper_inclusive = false;
  return *this;
}
IntervalJoinBoltBuilder& IntervalJoinBoltBuilder::Type(JoinType type) {
  config_.type = type;
  return *this;
}
IntervalJoinBoltBuilder& IntervalJoinBoltBuilder::Select(std::string fields) {
  ParseSelect(fields);
  config_.select = std::move(fields);
  return *this;
}
IntervalJoinBoltBuilder& IntervalJoinBoltBuilder::WithOutputStream(std::string stream) {
  config_.output_stream = std::move(stream);
  return *this;
}
IntervalJoinBoltBuilder& IntervalJoinBoltBuilder::WithTimestampField(std::string field) {
  config_.timestamp_field = std::move(field);
  return *this;
}
IntervalJoinBoltBuilder& IntervalJoinBoltBuilder::WithLag(int64_t lag_ms) {
  config_.lag_ms = lag_ms;
  return *this;
}
IntervalJoinBoltBuilder& IntervalJoinBoltBuilder::WithWatermarkInterval(int64_t interval_ms) {
  config_.watermark_interval_ms = interval_ms;
  return *this;
}
IntervalJoinBoltBuilder& IntervalJoinBoltBuilder::WithIdleTimeout(int64_t idle_timeout_ms) {
  config_.idle_timeout_ms = idle_timeout_ms;
  return *this;
}
IntervalJoinBoltBuilder& IntervalJoinBoltBuilder::WithLateTupleStream(std::string stream,
                                                                      topology::Fields fields) {
  config_.late_stream = std::move(stream);
  late_fields_[0] = fields;
  late_fields_[1] = std::move(fields);
  return *this;
}
IntervalJoinBoltBuilder& IntervalJoinBoltBuilder::WithLateTupleStream(JoinSide side,
                                                                      std::string stream,
                                                                      topology::Fields fields) {
  const int s = side == JoinSide::kLeft ? 0 : 1;
  (s == 0 ? config_.left : config_.right).late_stream = std::move(stream);
  late_fields_[s] = std::move(fields);
  return *this;
}

topology::BoltFactory IntervalJoinBoltBuilder::Build() const {
  const IntervalJoinBoltConfig config = config_;
  const topology::Fields left = late_fields_[0], right = late_fields_[1];
  IntervalJoinBolt check(config, left, right);  // validates now, not in every task
  return [config, left, right] { return std::make_unique<IntervalJoinBolt>(config, left, right); };
}

}  // namespace tempest::bolts

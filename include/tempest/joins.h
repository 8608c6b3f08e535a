#pragma once

// The built-in joins, configured in C++ (part of Tempest's public API, tempest/tempest.h): their
// vocabulary and a builder each, whose Build() gives the BoltFactory for TopologyBuilder::SetBolt.
// The YAML keys of the same settings: docs/joins.md, docs/interval-join.md,
// docs/symmetric-hash-join.md.

#include <cstdint>
#include <string>
#include <vector>

#include "tempest/bolt.h"
#include "tempest/fields.h"
#include "tempest/windowed_bolt.h"

namespace tempest::bolts {

// ---- Vocabulary shared by the joins.

enum class JoinType { kInner, kLeft, kRight, kFull };
// How an input is named: by its stream id or by its source component id (Storm's Selector).
enum class JoinSelector { kStream, kSource };

// The first input: the probe side (`from: {name, key}`).
struct JoinFrom {
  std::string name;
  std::vector<std::string> key;  // field descriptors (x.y.z), one per key part
  std::string late_stream = {};  // this input's late tuples go here (event time); "": bolt-level
};

// One `joins` entry: `name` joined on `key` to the key of the earlier input `with`.
struct JoinClause {
  JoinType type = JoinType::kInner;
  std::string name;
  std::vector<std::string> key;
  std::string with;
  std::string late_stream = {};  // as JoinFrom::late_stream
};

// ---- JoinBolt: Storm's windowed join of N inputs.

// Config of JoinBolt (docs/contracts.md, "Join and window bolts"); the names are its YAML keys.
struct JoinBoltConfig {
  JoinSelector selector = JoinSelector::kSource;  // selector: stream|source
  JoinFrom from;                                  // from
  std::vector<JoinClause> joins;                  // joins, applied in this order
  std::string select;                             // select: "a:x, b:y AS z, w"
  std::string output_stream = "default";          // output_stream
  bool keep_null_probe_keys = false;  // null_probe_keys: keep (SQL-like); false: drop (Storm)
  WindowConfig window;                // window and the event-time keys
};

// Storm's fluent JoinBolt API, with the same names:
//   JoinBoltBuilder(JoinSelector::kStream, "users", "userId")
//       .Join("orders", "userId", "users")
//       .LeftJoin("cities", "cityName", "users")
//       .Select("userId, name, price, country")
//       .WithTumblingWindow(WindowSpan::Count(1000))
//       .Build();   // a BoltFactory for TopologyBuilder::SetBolt
// Join errors throw std::invalid_argument at the call, as Storm's do.
class JoinBoltBuilder {
 public:
  JoinBoltBuilder(JoinSelector selector, std::string from, std::string key);
  JoinBoltBuilder(JoinSelector selector, std::string from, std::vector<std::string> key);

  JoinBoltBuilder& Join(std::string name, std::string key, std::string with);
  JoinBoltBuilder& LeftJoin(std::string name, std::string key, std::string with);
  JoinBoltBuilder& RightJoin(std::string name, std::string key, std::string with);
  JoinBoltBuilder& FullJoin(std::string name, std::string key, std::string with);
  JoinBoltBuilder& Join(JoinType type, std::string name, std::vector<std::string> key,
                        std::string with);
  JoinBoltBuilder& Select(std::string fields);
  JoinBoltBuilder& WithOutputStream(std::string stream);
  JoinBoltBuilder& WithNullProbeKeys(bool keep);
  JoinBoltBuilder& WithTumblingWindow(WindowSpan length);
  JoinBoltBuilder& WithWindow(WindowSpan length, WindowSpan slide);
  // Event time and lateness: timestamp_field, lag_ms, … of `window` (its type and spans are
  // kept from the With*Window call).
  JoinBoltBuilder& WithWindowConfig(WindowConfig window);
  // Late tuples of every input to `stream` (Storm's withLateTupleStream; all inputs have
  // `fields`), or of one input only, with that input's fields.
  JoinBoltBuilder& WithLateTupleStream(std::string stream, Fields fields);
  JoinBoltBuilder& WithLateTupleStream(const std::string& input, std::string stream, Fields fields);

  const JoinBoltConfig& config() const noexcept { return config_; }
  // Validates and returns a factory of adapted JoinBolt instances (one per task).
  BoltFactory Build() const;

 private:
  JoinBoltBuilder& WithShape(WindowConfig::Type type, WindowSpan length, WindowSpan slide);

  JoinBoltConfig config_;
  Fields late_fields_;
  std::vector<LateRoute> routes_;
};

// ---- IntervalJoinBolt: Flink's interval join of two inputs, with outer joins.

// The two inputs of a two-input join.
enum class JoinSide : uint8_t { kLeft = 0, kRight = 1 };

// One side of an interval join (`left:` / `right:`).
struct IntervalJoinInput {
  std::string name;                  // the input's stream or source name (selector)
  std::vector<std::string> key;      // field descriptors, one per key part
  std::string timestamp_field = {};  // its event time; empty: the bolt's timestamp_field
  std::string late_stream = {};      // its late tuples go here; empty: the bolt's late_stream
};

// Config of IntervalJoinBolt (docs/contracts.md, "Join and window bolts"); the names are its YAML
// keys.
struct IntervalJoinBoltConfig {
  JoinSelector selector = JoinSelector::kSource;  // selector: stream|source
  IntervalJoinInput left;                         // left: {name, key, timestamp_field, late_stream}
  IntervalJoinInput right;                        // right: likewise
  int64_t lower_bound_ms = 0;                     // lower_bound_ms: right.ts >= left.ts + this
  int64_t upper_bound_ms = 0;                     // upper_bound_ms: right.ts <= left.ts + this
  bool lower_inclusive = true;                    // lower_inclusive (false: the end moves +1 ms)
  bool upper_inclusive = true;                    // upper_inclusive (false: the end moves -1 ms)
  JoinType type = JoinType::kInner;               // type: inner|left|right|full
  std::string select;                             // select: "a:x, b:y AS z, _ts"
  std::string output_stream = "default";          // output_stream
  std::string timestamp_field;                    // timestamp_field: both sides' event time
  int64_t lag_ms = 0;                             // lag_ms: watermark = min of maxima - lag
  int64_t watermark_interval_ms = 1000;           // watermark_interval_ms; 0: after every tuple
  int64_t idle_timeout_ms = 0;                    // idle_timeout_ms; 0: never idle
  std::string late_stream;                        // late_stream: both sides' late tuples
};

// The C++ way to the same config, with Flink's names:
//   IntervalJoinBoltBuilder(JoinSelector::kSource, {"shows", {"log_id"}, "ts"},
//                           {"clicks", {"log_id"}, "ts"})
//       .Between(0, 600'000)
//       .Type(JoinType::kLeft)
//       .Select("shows:log_id, clicks:ts AS click_ts, _ts")
//       .Build();   // a BoltFactory for TopologyBuilder::SetBolt
class IntervalJoinBoltBuilder {
 public:
  IntervalJoinBoltBuilder(JoinSelector selector, IntervalJoinInput left, IntervalJoinInput right);

  IntervalJoinBoltBuilder& Between(int64_t lower_ms, int64_t upper_ms);
  IntervalJoinBoltBuilder& LowerBoundExclusive();
  IntervalJoinBoltBuilder& UpperBoundExclusive();
  IntervalJoinBoltBuilder& Type(JoinType type);
  IntervalJoinBoltBuilder& Select(std::string fields);
  IntervalJoinBoltBuilder& WithOutputStream(std::string stream);
  IntervalJoinBoltBuilder& WithTimestampField(std::string field);
  IntervalJoinBoltBuilder& WithLag(int64_t lag_ms);
  IntervalJoinBoltBuilder& WithWatermarkInterval(int64_t interval_ms);
  IntervalJoinBoltBuilder& WithIdleTimeout(int64_t idle_timeout_ms);
  // Late tuples of both sides to `stream` (both sides have `fields`), or of one side only.
  IntervalJoinBoltBuilder& WithLateTupleStream(std::string stream, Fields fields);
  IntervalJoinBoltBuilder& WithLateTupleStream(JoinSide side, std::string stream, Fields fields);

  const IntervalJoinBoltConfig& config() const noexcept { return config_; }
  // Validates and returns a factory of IntervalJoinBolt instances (one per task).
  BoltFactory Build() const;

 private:
  IntervalJoinBoltConfig config_;
  Fields late_fields_[2];
};

// ---- SymmetricHashJoinBolt: unbounded joins (Spark's append mode, Flink's changelog mode).

enum class SymmetricJoinType { kInner, kLeft, kRight, kFull, kLeftSemi, kLeftAnti };
enum class SymmetricJoinMode { kAppend, kChangelog };

// One side of a symmetric hash join (`left:` / `right:`).
struct SymmetricJoinInput {
  std::string name;                  // the input's stream or source name (selector)
  std::vector<std::string> key;      // field descriptors, one per key part
  std::string timestamp_field = {};  // event time (append mode); empty: the bolt's
  bool unique = false;  // changelog: the key is the side's primary key, one row per key
  int64_t state_ttl_ms =
      -1;  // changelog: this side's TTL (Flink's per-side retention); -1: the bolt's
};

// Config of SymmetricHashJoinBolt (docs/contracts.md, "Join and window bolts"); the names are its
// YAML keys.
struct SymmetricHashJoinBoltConfig {
  JoinSelector selector = JoinSelector::kSource;       // selector: stream|source
  SymmetricJoinInput left;                             // left: {name, key, timestamp_field, unique}
  SymmetricJoinInput right;                            // right: likewise
  SymmetricJoinType type = SymmetricJoinType::kInner;  // type
  SymmetricJoinMode mode = SymmetricJoinMode::kChangelog;  // mode: append|changelog
  std::string condition;                  // condition (docs/expressions.md); "": none
  int64_t state_ttl_ms = 0;               // state_ttl_ms: rows expire; 0: never
  std::string select;                     // select: as JoinBolt's
  std::string output_stream = "default";  // output_stream
  // Event time, append mode only (docs/contracts.md, "Event time"): both sides' timestamp field,
  // the watermark's lag, how often it is recomputed (0: after every tuple), and when a silent input
  // stops holding it back (0: never).
  std::string timestamp_field;
  int64_t lag_ms = 0;
  int64_t watermark_interval_ms = 1000;
  int64_t idle_timeout_ms = 0;
};

// The C++ way to the same config:
//   SymmetricHashJoinBoltBuilder(JoinSelector::kSource, {"orders", {"id"}}, {"payments", {"id"}})
//       .Type(SymmetricJoinType::kLeft)
//       .Mode(SymmetricJoinMode::kChangelog)
//       .Condition("payments:amount > 0")
//       .Select("orders:id, amount")
//       .Build();   // a BoltFactory for TopologyBuilder::SetBolt
class SymmetricHashJoinBoltBuilder {
 public:
  SymmetricHashJoinBoltBuilder(JoinSelector selector, SymmetricJoinInput left,
                               SymmetricJoinInput right);

  SymmetricHashJoinBoltBuilder& Type(SymmetricJoinType type);
  SymmetricHashJoinBoltBuilder& Mode(SymmetricJoinMode mode);
  SymmetricHashJoinBoltBuilder& Condition(std::string condition);
  SymmetricHashJoinBoltBuilder& StateTtl(int64_t ttl_ms);
  SymmetricHashJoinBoltBuilder& Select(std::string fields);
  SymmetricHashJoinBoltBuilder& WithOutputStream(std::string stream);
  // Append mode's event time: both sides' timestamp field and the watermark's settings.
  SymmetricHashJoinBoltBuilder& WithTimestampField(std::string field);
  SymmetricHashJoinBoltBuilder& WithLag(int64_t lag_ms);
  SymmetricHashJoinBoltBuilder& WithWatermarkInterval(int64_t interval_ms);
  SymmetricHashJoinBoltBuilder& WithIdleTimeout(int64_t idle_timeout_ms);

  const SymmetricHashJoinBoltConfig& config() const noexcept { return config_; }
  // Validates and returns a factory of SymmetricHashJoinBolt instances (one per task).
  BoltFactory Build() const;

 private:
  SymmetricHashJoinBoltConfig config_;
};

}  // namespace tempest::bolts

namespace tempest {
using bolts::IntervalJoinBoltBuilder;
using bolts::IntervalJoinBoltConfig;
using bolts::IntervalJoinInput;
using bolts::JoinBoltBuilder;
using bolts::JoinBoltConfig;
using bolts::JoinClause;
using bolts::JoinFrom;
using bolts::JoinSelector;
using bolts::JoinSide;
using bolts::JoinType;
using bolts::SymmetricHashJoinBoltBuilder;
using bolts::SymmetricHashJoinBoltConfig;
using bolts::SymmetricJoinInput;
using bolts::SymmetricJoinMode;
using bolts::SymmetricJoinType;
}  // namespace tempest

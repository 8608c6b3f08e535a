#pragma once

// What spouts and bolts emit through (part of Tempest's public API, tempest/tempest.h).

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tempest/fields.h"
#include "tempest/tuple.h"
#include "tempest/value.h"

namespace tempest::topology {

using Anchors = std::span<const Tuple* const>;

// The values of an emit are taken by forwarding reference: an rvalue (the usual `Emit({...})`
// or `Emit(std::move(row))`) reaches the runtime without being moved again on the way, an lvalue
// is copied once.
template <class V>
concept ValuesArg = std::same_as<std::remove_cvref_t<V>, Values>;
inline Values&& PassValues(Values&& v) noexcept { return std::move(v); }
inline Values PassValues(const Values& v) { return v; }

// What a bolt emits through (Storm's OutputCollector). Emits name a declared stream (default:
// "default") and may be anchored to input tuples so that failures propagate to the spout.
// EmitDirect sends to one task of a component subscribed to a direct stream. Misuse (undeclared
// stream, Emit on a direct stream, EmitDirect to a task expecting a regular grouping) throws
// std::invalid_argument, which fails the input tuple being executed.
// Bound to one task; call it only from that task's thread (Execute, Prepare, OnEndOfStream).
class OutputCollector {
 public:
  virtual ~OutputCollector() = default;
  friend class BasicOutputCollector;

  template <ValuesArg V = Values>
  void Emit(V&& values) {
    DoEmit(kDefaultStream, -1, {}, PassValues(std::forward<V>(values)));
  }
  template <ValuesArg V = Values>
  void Emit(std::string_view stream, V&& values) {
    DoEmit(stream, -1, {}, PassValues(std::forward<V>(values)));
  }
  template <ValuesArg V = Values>
  void Emit(const Tuple& anchor, V&& values) {
    const Tuple* a = &anchor;
    DoEmit(kDefaultStream, -1, Anchors(&a, 1), PassValues(std::forward<V>(values)));
  }
  template <ValuesArg V = Values>
  void Emit(std::string_view stream, const Tuple& anchor, V&& values) {
    const Tuple* a = &anchor;
    DoEmit(stream, -1, Anchors(&a, 1), PassValues(std::forward<V>(values)));
  }
  template <ValuesArg V = Values>
  void Emit(std::string_view stream, Anchors anchors, V&& values) {
    DoEmit(stream, -1, anchors, PassValues(std::forward<V>(values)));
  }
  template <ValuesArg V = Values>
  void Emit(std::string_view stream, std::initializer_list<const Tuple*> anchors, V&& values) {
    DoEmit(stream, -1, Anchors(anchors.begin(), anchors.size()),
           PassValues(std::forward<V>(values)));
  }

  template <ValuesArg V = Values>
  void EmitDirect(int task, V&& values) {
    DoEmit(kDefaultStream, task, {}, PassValues(std::forward<V>(values)));
  }
  template <ValuesArg V = Values>
  void EmitDirect(int task, std::string_view stream, V&& values) {
    DoEmit(stream, task, {}, PassValues(std::forward<V>(values)));
  }
  template <ValuesArg V = Values>
  void EmitDirect(int task, const Tuple& anchor, V&& values) {
    const Tuple* a = &anchor;
    DoEmit(kDefaultStream, task, Anchors(&a, 1), PassValues(std::forward<V>(values)));
  }
  template <ValuesArg V = Values>
  void EmitDirect(int task, std::string_view stream, const Tuple& anchor, V&& values) {
    const Tuple* a = &anchor;
    DoEmit(stream, task, Anchors(&a, 1), PassValues(std::forward<V>(values)));
  }
  template <ValuesArg V = Values>
  void EmitDirect(int task, std::string_view stream, Anchors anchors, V&& values) {
    DoEmit(stream, task, anchors, PassValues(std::forward<V>(values)));
  }

  // Marks the input fully processed by this bolt / failed (the spout replays it).
  virtual void Ack(const Tuple& input) = 0;
  virtual void Fail(const Tuple& input) = 0;
  // Restarts the message timeout of the tuple tree this input belongs to.
  virtual void ResetTimeout(const Tuple& input) = 0;
  // Logs an error against this task and counts it in the run's metrics.
  virtual void ReportError(std::string_view message) = 0;
  // Counts inputs this bolt dropped on purpose after acking them, by cause (the built-in bolts
  // use "late", "no_timestamp", "unknown_stream", "bad_op" and "null_key"); the run summary,
  // /metrics and /api/v1/ show the total as `dropped` and each cause's share. A cause is a short
  // fixed word; a task keeps 15 distinct ones, later new ones count as "other". No lock: cheap
  // enough per tuple.
  virtual void ReportDropped(std::string_view cause, uint64_t count = 1) {
    (void)cause;
    (void)count;
  }
  // The same with the cause "other".
  void ReportDropped(uint64_t count = 1) { ReportDropped(kDroppedOther, count); }
  static constexpr std::string_view kDroppedOther = "other";
  // Sets a named gauge of this task (e.g. rows a join holds); the run summary shows each gauge
  // summed over the component's tasks. Meant for occasional calls (ticks, end of stream), not
  // per tuple: it takes a lock and may allocate.
  virtual void ReportGauge(std::string_view name, uint64_t value) {
    (void)name;
    (void)value;
  }

 protected:
  // direct_task < 0: route by the stream's groupings.
  virtual void DoEmit(std::string_view stream, int direct_task, Anchors anchors,
                      Values&& values) = 0;
  // For collectors that wrap another (windowed bolts): hands the values on without moving them
  // again.
  static void Forward(OutputCollector& to, std::string_view stream, int direct_task,
                      Anchors anchors, Values&& values) {
    to.DoEmit(stream, direct_task, anchors, std::move(values));
  }
};

// What a spout emits through (Storm's SpoutOutputCollector). A non-null message id makes the
// tuple tracked: the spout's Ack or Fail is called with it once its tuple tree completes or fails.
// Bound to one task; call it only from that task's thread.
class SpoutOutputCollector {
 public:
  virtual ~SpoutOutputCollector() = default;

  template <ValuesArg V = Values>
  void Emit(V&& values) {
    DoEmit(kDefaultStream, -1, PassValues(std::forward<V>(values)), Value());
  }
  template <ValuesArg V = Values>
  void Emit(V&& values, Value message_id) {
    DoEmit(kDefaultStream, -1, PassValues(std::forward<V>(values)), std::move(message_id));
  }
  template <ValuesArg V = Values>
  void Emit(std::string_view stream, V&& values) {
    DoEmit(stream, -1, PassValues(std::forward<V>(values)), Value());
  }
  template <ValuesArg V = Values>
  void Emit(std::string_view stream, V&& values, Value message_id) {
    DoEmit(stream, -1, PassValues(std::forward<V>(values)), std::move(message_id));
  }
  template <ValuesArg V = Values>
  void EmitDirect(int task, V&& values) {
    DoEmit(kDefaultStream, task, PassValues(std::forward<V>(values)), Value());
  }
  template <ValuesArg V = Values>
  void EmitDirect(int task, V&& values, Value message_id) {
    DoEmit(kDefaultStream, task, PassValues(std::forward<V>(values)), std::move(message_id));
  }
  template <ValuesArg V = Values>
  void EmitDirect(int task, std::string_view stream, V&& values, Value message_id = Value()) {
    DoEmit(stream, task, PassValues(std::forward<V>(values)), std::move(message_id));
  }

  virtual void ReportError(std::string_view message) = 0;

 protected:
  virtual void DoEmit(std::string_view stream, int direct_task, Values&& values,
                      Value&& message_id) = 0;

 public:
  // Declared last, so the virtual functions above keep their places for plugins built before it.
  // Sets a named gauge of this task, as OutputCollector::ReportGauge does for a bolt (occasional
  // calls, not per tuple). A spout reading a finite input that reports "input bytes read" and
  // "input bytes" (its size) gets a progress bar and an ETA on the terminal.
  virtual void ReportGauge(std::string_view name, uint64_t value) {
    (void)name;
    (void)value;
  }
};

}  // namespace tempest::topology

namespace tempest {
using topology::Anchors;
using topology::OutputCollector;
using topology::SpoutOutputCollector;
}  // namespace tempest

#pragma once

// Helpers for the built-in component tests: a private temporary folder, file read/write, fake
// collectors that record every call, and a TopologyContext for task i of n without a run.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../support/temp_dir.h"
#include "topology/bolt.h"
#include "topology/named_counts.h"
#include "topology/output_collector.h"
#include "topology/row_batch.h"
#include "topology/task_layout.h"
#include "topology/topology_context.h"
#include "topology/topology_spec.h"

namespace tempest::testing {

// The lines of `text` (each without its '\n'); a final line without '\n' counts too.
inline std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    lines.emplace_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

// A TopologyContext for task `index` (0-based) of a component with `parallelism` tasks, the only
// component of a one-component topology (so its task ids are 1..parallelism).
class FakeContext {
 public:
  FakeContext(std::string component, topology::ComponentKind kind, int parallelism, int index) {
    auto spec = std::make_shared<topology::TopologySpec>();
    topology::ComponentSpec c;
    c.id = std::move(component);
    c.kind = kind;
    c.parallelism = parallelism;
    spec->components.push_back(std::move(c));
    auto layout = std::make_shared<const topology::TaskLayout>(*spec);
    context_ =
        std::make_unique<topology::TopologyContext>(std::move(spec), std::move(layout), 1 + index);
  }
  const topology::TopologyContext& get() const { return *context_; }
  operator const topology::TopologyContext&() const { return *context_; }

 private:
  std::unique_ptr<topology::TopologyContext> context_;
};

inline FakeContext SpoutContext(int parallelism = 1, int index = 0) {
  return FakeContext("spout", topology::ComponentKind::kSpout, parallelism, index);
}
inline FakeContext BoltContext(int parallelism = 1, int index = 0) {
  return FakeContext("bolt", topology::ComponentKind::kBolt, parallelism, index);
}

// Records what a spout emits and reports.
class FakeSpoutCollector : public topology::SpoutOutputCollector {
 public:
  struct Emitted {
    std::string stream;
    topology::Values values;
    topology::Value message_id;
  };
  std::vector<Emitted> emitted;
  std::vector<std::string> errors;
  std::vector<std::pair<std::string, uint64_t>> gauges;  // every ReportGauge, in call order

  void ReportError(std::string_view message) override { errors.emplace_back(message); }
  void ReportGauge(std::string_view name, uint64_t value) override {
    gauges.emplace_back(name, value);
  }

 protected:
  void DoEmit(std::string_view stream, int, topology::Values&& values,
              topology::Value&& message_id) override {
    emitted.push_back({std::string(stream), std::move(values), std::move(message_id)});
  }
};

// Records what a bolt emits, acks, fails and reports, in one event log.
class FakeBoltCollector : public topology::OutputCollector {
 public:
  struct Emitted {
    std::string stream;
    std::vector<const topology::Tuple*> anchors;
    topology::Values values;
    // The anchors' ack metadata at the emit: the first root of each tracked anchor (the
    // pointers above may be to a collector's scratch tuples, reused after the emit).
    std::vector<uint64_t> anchor_roots;
  };
  std::vector<Emitted> emitted;
  std::vector<topology::Tuple> acked;   // copies of what was acked
  std::vector<topology::Tuple> failed;  // copies of what was failed
  std::vector<std::string> errors;
  std::vector<std::string> log;  // "emit", "ack", "fail", "error", "drop" in call order
  uint64_t dropped = 0;          // ReportDropped counts
  std::vector<std::pair<std::string, uint64_t>> dropped_by_cause;  // in first-reported order
  // ReportGauge: latest value per name, in first-reported order (not in `log`).
  std::vector<std::pair<std::string, uint64_t>> gauges;

  void Ack(const topology::Tuple& t) override {
    acked.push_back(t);
    log.emplace_back("ack");
  }
  void Fail(const topology::Tuple& t) override {
    failed.push_back(t);
    log.emplace_back("fail");
  }
  void ResetTimeout(const topology::Tuple&) override {}
  void ReportError(std::string_view m) override {
    errors.emplace_back(m);
    log.emplace_back("error");
  }
  using topology::OutputCollector::ReportDropped;
  void ReportDropped(std::string_view cause, uint64_t n) override {
    dropped += n;
    topology::NamedValue(dropped_by_cause, cause) += n;
    log.emplace_back("drop");
  }
  void ReportGauge(std::string_view name, uint64_t value) override {
    topology::NamedValue(gauges, name) = value;
  }

 protected:
  void DoEmit(std::string_view stream, int, topology::Anchors anchors,
              topology::Values&& values) override {
    std::vector<uint64_t> roots;
    for (const topology::Tuple* a : anchors) {
      if (a != nullptr && !tempest::topology::TupleAccess::Ack(*a).anchors.empty())
        roots.push_back(tempest::topology::TupleAccess::Ack(*a).anchors.front().root);
    }
    emitted.push_back({std::string(stream),
                       {anchors.begin(), anchors.end()},
                       std::move(values),
                       std::move(roots)});
    log.emplace_back("emit");
  }
};

// Runs a BatchBolt's batch path against a FakeBoltCollector: each row is loaded as a Tuple
// (kept, so the recorded anchors stay valid); a forward or anchored emit is recorded as an emit
// anchored to it, AckRow / FailRow as its ack / fail (with the ack value AckRow passed),
// ExecuteAsTuple runs the bolt's Execute, failing the row when it throws (as the runtime does).
class FakeBatchCollector final : public topology::BatchCollector {
 public:
  FakeBatchCollector(topology::Bolt& bolt, FakeBoltCollector& out) : bolt_(bolt), out_(out) {}

  uint64_t ForwardRow(std::string_view stream, const topology::RowRef& row) override {
    const topology::Tuple& t = Loaded(row);
    out_.Emit(stream, t, t.GetValues());
    return ++edges;
  }
  uint64_t EmitAnchored(std::string_view stream, const topology::RowRef& row,
                        topology::Values&& values) override {
    out_.Emit(stream, Loaded(row), std::move(values));
    return ++edges;
  }
  void ExecuteAsTuple(const topology::RowRef& row) override {
    const topology::Tuple& t = Loaded(row);
    ++executed_as_tuples;
    try {
      bolt_.Execute(t);
    } catch (const std::exception&) {
      out_.Fail(t);
    }
  }
  void AckRow(const topology::RowRef& row, uint64_t ack_val) override {
    topology::Tuple t = Loaded(row);
    topology::TupleAccess::MutableAck(t).ack_val = ack_val;
    out_.Ack(t);
  }
  // Recorded as that many acks of untracked tuples (no stream, no values).
  void AckUntracked(std::size_t n) override {
    for (std::size_t i = 0; i < n; ++i) out_.Ack(topology::Tuple());
  }
  void FailRow(const topology::RowRef& row) override { out_.Fail(Loaded(row)); }
  int BatchSource() const noexcept override { return 1; }

  uint64_t edges = 0;  // ack values handed out, 1, 2, ...
  int executed_as_tuples = 0;

 private:
  const topology::Tuple& Loaded(const topology::RowRef& row) {
    row.Load(BatchSource(), loaded_.emplace_back());
    return loaded_.back();
  }

  topology::Bolt& bolt_;
  FakeBoltCollector& out_;
  std::deque<topology::Tuple> loaded_;
};

}  // namespace tempest::testing

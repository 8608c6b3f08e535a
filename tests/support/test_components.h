#pragma once

// Small spouts and bolts for tests: each records what it sees so tests can assert exact
// outcomes. Thread-safe where several tasks share a Recorder.

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "topology/bolt.h"
#include "topology/spout.h"

namespace tempest::testing {

using topology::Fields;
using topology::NextResult;
using topology::OutputCollector;
using topology::OutputFieldsDeclarer;
using topology::SpoutOutputCollector;
using topology::TopologyContext;
using topology::Tuple;
using topology::Values;

// What sinks received, from every task.
class Recorder {
 public:
  struct Record {
    int task;
    std::string component;
    std::string stream;
    Values values;
  };
  void Add(int task, const Tuple& t) {
    std::lock_guard lock(mu_);
    records_.push_back(Record{task, t.GetSourceComponent(), t.GetSourceStreamId(), t.GetValues()});
  }
  void Note(const std::string& event) {
    std::lock_guard lock(mu_);
    events_.push_back(event);
  }
  std::vector<Record> records() const {
    std::lock_guard lock(mu_);
    return records_;
  }
  std::vector<std::string> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Record> records_;
  std::vector<std::string> events_;
};

// Emits the given rows on `stream` (fields `fields`), one per NextTuple, then is exhausted.
// With parallelism p, task i emits rows i, i+p, i+2p, …
class ListSpout : public topology::Spout {
 public:
  ListSpout(Fields fields, std::vector<Values> rows, std::string stream = "default")
      : fields_(std::move(fields)), rows_(std::move(rows)), stream_(std::move(stream)) {}
  void Open(const TopologyContext& context, SpoutOutputCollector& collector) override {
    out_ = &collector;
    next_ = static_cast<std::size_t>(context.GetThisTaskIndex());
    stride_ = context.GetThisComponentTasks().size();
  }
  NextResult NextTuple() override {
    if (next_ >= rows_.size()) return NextResult::kExhausted;
    out_->Emit(stream_, rows_[next_], static_cast<int64_t>(next_));
    next_ += stride_;
    return NextResult::kEmitted;
  }
  void DeclareOutputFields(OutputFieldsDeclarer& d) const override {
    d.DeclareStream(stream_, fields_);
  }

 private:
  Fields fields_;
  std::vector<Values> rows_;
  std::string stream_;
  SpoutOutputCollector* out_ = nullptr;
  std::size_t next_ = 0, stride_ = 1;
};

// Records every input (and, at end-of-stream, an "eos:<task>" event), acks it, emits nothing.
class RecordingBolt : public topology::Bolt {
 public:
  explicit RecordingBolt(std::shared_ptr<Recorder> recorder) : recorder_(std::move(recorder)) {}
  void Prepare(const TopologyContext& context, OutputCollector& collector) override {
    task_ = context.GetThisTaskId();
    out_ = &collector;
  }
  void Execute(const Tuple& input) override {
    recorder_->Add(task_, input);
    out_->Ack(input);
  }
  void OnEndOfStream() override { recorder_->Note("eos:" + std::to_string(task_)); }
  void DeclareOutputFields(OutputFieldsDeclarer&) const override {}

 private:
  std::shared_ptr<Recorder> recorder_;
  int task_ = 0;
  OutputCollector* out_ = nullptr;
};

// A spout that never emits and never ends (a run of it ends by Stop()).
class SilentSpout : public ListSpout {
 public:
  SilentSpout() : ListSpout({"x"}, {}) {}
  NextResult NextTuple() override { return NextResult::kIdle; }
};

// A RecordingBolt that asks for a tick every 2 ms and counts the ticks.
class TickingBolt : public RecordingBolt {
 public:
  TickingBolt(std::shared_ptr<Recorder> recorder, std::shared_ptr<std::atomic<int>> ticks)
      : RecordingBolt(std::move(recorder)), ticks_(std::move(ticks)) {}
  std::chrono::milliseconds TickInterval() const override { return std::chrono::milliseconds(2); }
  void OnTick() override { ++*ticks_; }

 private:
  std::shared_ptr<std::atomic<int>> ticks_;
};

// The calling thread's name (task threads are named "t<task> <component>").
inline std::string ThisThreadName() {
  char name[16] = {};
  pthread_getname_np(pthread_self(), name, sizeof name);
  return name;
}

// A bolt whose behaviour a test supplies as lambdas; declares `streams` (id → fields).
class LambdaBolt : public topology::Bolt {
 public:
  using ExecuteFn = std::function<void(const Tuple&, OutputCollector&, const TopologyContext&)>;
  LambdaBolt(std::map<std::string, Fields> streams, ExecuteFn execute,
             std::function<void(OutputCollector&)> on_eos = {}, bool direct = false)
      : streams_(std::move(streams)),
        execute_(std::move(execute)),
        on_eos_(std::move(on_eos)),
        direct_(direct) {}
  void Prepare(const TopologyContext& context, OutputCollector& collector) override {
    context_ = &context;
    out_ = &collector;
  }
  void Execute(const Tuple& input) override { execute_(input, *out_, *context_); }
  void OnEndOfStream() override {
    if (on_eos_) on_eos_(*out_);
  }
  void DeclareOutputFields(OutputFieldsDeclarer& d) const override {
    for (const auto& [id, fields] : streams_) d.DeclareStream(id, direct_, fields);
  }

 private:
  std::map<std::string, Fields> streams_;
  ExecuteFn execute_;
  std::function<void(OutputCollector&)> on_eos_;
  bool direct_;
  const TopologyContext* context_ = nullptr;
  OutputCollector* out_ = nullptr;
};

}  // namespace tempest::testing

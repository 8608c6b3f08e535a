#pragma once

// A bolt acked automatically (part of Tempest's public API, tempest/tempest.h).

#include <functional>
#include <memory>
#include <string_view>

#include "tempest/bolt.h"
#include "tempest/errors.h"

namespace tempest::topology {

class BasicBoltAdapter;

// Emits of a BasicBolt: every emit is anchored to the input being executed.
class BasicOutputCollector {
 public:
  explicit BasicOutputCollector(OutputCollector& out) noexcept : out_(out) {}

  template <ValuesArg V = Values>
  void Emit(V&& values) {
    Send(kDefaultStream, -1, PassValues(std::forward<V>(values)));
  }
  template <ValuesArg V = Values>
  void Emit(std::string_view stream, V&& values) {
    Send(stream, -1, PassValues(std::forward<V>(values)));
  }
  template <ValuesArg V = Values>
  void EmitDirect(int task, V&& values) {
    Send(kDefaultStream, task, PassValues(std::forward<V>(values)));
  }
  template <ValuesArg V = Values>
  void EmitDirect(int task, std::string_view stream, V&& values) {
    Send(stream, task, PassValues(std::forward<V>(values)));
  }
  void ResetTimeout() { out_.ResetTimeout(*input_); }
  void ReportError(std::string_view message) { out_.ReportError(message); }
  void ReportDropped(uint64_t count = 1) { out_.ReportDropped(count); }
  void ReportDropped(std::string_view cause, uint64_t count = 1) {
    out_.ReportDropped(cause, count);
  }
  void ReportGauge(std::string_view name, uint64_t value) { out_.ReportGauge(name, value); }

 private:
  friend class BasicBoltAdapter;  // sets the input being executed
  void SetInput(const Tuple* input) noexcept { input_ = input; }

  void Send(std::string_view stream, int task, Values&& values) {
    out_.DoEmit(stream, task, Anchors(&input_, 1), std::move(values));
  }

  OutputCollector& out_;
  const Tuple* input_ = nullptr;
};

// A bolt that is acked automatically (Storm's IBasicBolt): emits are anchored to the input, the
// input is acked when Execute returns, and a FailedException (or any other exception) fails it.
// Same threading rules as Bolt.
class BasicBolt {
 public:
  virtual ~BasicBolt() = default;

  virtual void Prepare(const TopologyContext& context) { (void)context; }
  virtual void Execute(const Tuple& input, BasicOutputCollector& collector) = 0;
  // Flush hook of bounded runs; emits here are unanchored.
  virtual void OnEndOfStream(OutputCollector& collector) { (void)collector; }
  virtual void Cleanup() {}
  virtual void DeclareOutputFields(OutputFieldsDeclarer& declarer) const = 0;
};

// Runs a BasicBolt as a Bolt (Storm's BasicBoltExecutor). TopologyBuilder::SetBolt and
// ComponentRegistry::AddBolt<T> do this themselves; a plugin's bolt maker calls it.
std::unique_ptr<Bolt> AdaptBasicBolt(std::unique_ptr<BasicBolt> bolt);

// Makes one task's instance of a basic bolt.
using BasicBoltFactory = std::function<std::unique_ptr<BasicBolt>()>;

}  // namespace tempest::topology

namespace tempest {
using topology::AdaptBasicBolt;
using topology::BasicBolt;
using topology::BasicBoltFactory;
using topology::BasicOutputCollector;
}  // namespace tempest

#include "topology/basic_bolt.h"

#include <optional>

namespace tempest::topology {

class BasicBoltAdapter final : public Bolt {
 public:
  explicit BasicBoltAdapter(std::unique_ptr<BasicBolt> bolt) : bolt_(std::move(bolt)) {}

  void Prepare(const TopologyContext& context, OutputCollector& collector) override {
    out_ = &collector;
    basic_.emplace(collector);
    bolt_->Prepare(context);
  }

  void Execute(const Tuple& input) override {
    basic_->SetInput(&input);
    try {
      bolt_->Execute(input, *basic_);
    } catch (const FailedException&) {
      basic_->SetInput(nullptr);
      out_->Fail(input);
      return;
    } catch (...) {
      // The executor logs the error and fails the input; clear our state first.
      basic_->SetInput(nullptr);
      throw;
    }
    basic_->SetInput(nullptr);
    out_->Ack(input);
  }

  void OnEndOfStream() override { bolt_->OnEndOfStream(*out_); }
  void Cleanup() override { bolt_->Cleanup(); }
  void DeclareOutputFields(OutputFieldsDeclarer& declarer) const override {
    bolt_->DeclareOutputFields(declarer);
  }

 private:
  std::unique_ptr<BasicBolt> bolt_;
  OutputCollector* out_ = nullptr;
  std::optional<BasicOutputCollector> basic_;
};

std::unique_ptr<Bolt> AdaptBasicBolt(std::unique_ptr<BasicBolt> bolt) {
  return std::make_unique<BasicBoltAdapter>(std::move(bolt));
}

}  // namespace tempest::topology

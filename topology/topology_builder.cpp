#include "topology/topology_builder.h"

#include <fmt/format.h>

#include "topology/errors.h"

namespace tempest::topology {

BoltDeclarer& BoltDeclarer::Add(std::string component, std::string stream, GroupingType type,
                                std::vector<std::string> fields, CustomGroupingFactory custom) {
  return Grouping(InputSpec{GlobalStreamId{std::move(component), std::move(stream)},
                            GroupingSpec{type, std::move(fields), std::move(custom)}});
}

BoltDeclarer& BoltDeclarer::Grouping(InputSpec input) {
  (*components_)[index_].inputs.push_back(std::move(input));
  return *this;
}

BoltDeclarer& BoltDeclarer::ShuffleGrouping(std::string component, std::string stream) {
  return Add(std::move(component), std::move(stream), GroupingType::kShuffle);
}
BoltDeclarer& BoltDeclarer::FieldsGrouping(std::string component, const Fields& fields) {
  return FieldsGrouping(std::move(component), kDefaultStream, fields);
}
BoltDeclarer& BoltDeclarer::FieldsGrouping(std::string component, std::string stream,
                                           const Fields& fields) {
  return Add(std::move(component), std::move(stream), GroupingType::kFields, fields.names());
}
BoltDeclarer& BoltDeclarer::AllGrouping(std::string component, std::string stream) {
  return Add(std::move(component), std::move(stream), GroupingType::kAll);
}
BoltDeclarer& BoltDeclarer::GlobalGrouping(std::string component, std::string stream) {
  return Add(std::move(component), std::move(stream), GroupingType::kGlobal);
}
BoltDeclarer& BoltDeclarer::NoneGrouping(std::string component, std::string stream) {
  return Add(std::move(component), std::move(stream), GroupingType::kNone);
}
BoltDeclarer& BoltDeclarer::DirectGrouping(std::string component, std::string stream) {
  return Add(std::move(component), std::move(stream), GroupingType::kDirect);
}
BoltDeclarer& BoltDeclarer::LocalOrShuffleGrouping(std::string component, std::string stream) {
  return Add(std::move(component), std::move(stream), GroupingType::kLocalOrShuffle);
}
BoltDeclarer& BoltDeclarer::PartialKeyGrouping(std::string component, const Fields& fields) {
  return PartialKeyGrouping(std::move(component), kDefaultStream, fields);
}
BoltDeclarer& BoltDeclarer::PartialKeyGrouping(std::string component, std::string stream,
                                               const Fields& fields) {
  return Add(std::move(component), std::move(stream), GroupingType::kPartialKey, fields.names());
}
BoltDeclarer& BoltDeclarer::CustomGrouping(std::string component, CustomGroupingFactory grouping) {
  return CustomGrouping(std::move(component), kDefaultStream, std::move(grouping));
}
BoltDeclarer& BoltDeclarer::CustomGrouping(std::string component, std::string stream,
                                           CustomGroupingFactory grouping) {
  return Add(std::move(component), std::move(stream), GroupingType::kCustom, {},
             std::move(grouping));
}

TopologyBuilder::TopologyBuilder(std::string name) : spec_(std::make_unique<TopologySpec>()) {
  spec_->name = std::move(name);
}

TopologyBuilder::~TopologyBuilder() = default;

TopologyConfig& TopologyBuilder::Config() noexcept { return spec_->config; }

SpoutDeclarer TopologyBuilder::SetSpout(std::string id, SpoutFactory factory, int parallelism) {
  ComponentSpec c;
  c.id = std::move(id);
  c.kind = ComponentKind::kSpout;
  c.parallelism = parallelism;
  c.spout_factory = std::move(factory);
  spec_->components.push_back(std::move(c));
  return SpoutDeclarer(&spec_->components, spec_->components.size() - 1);
}

SpoutDeclarer& SpoutDeclarer::FailedStream(std::string stream) {
  (*components_)[index_].failed_stream = std::move(stream);
  return *this;
}

BoltDeclarer TopologyBuilder::SetBolt(std::string id, BoltFactory factory, int parallelism) {
  ComponentSpec c;
  c.id = std::move(id);
  c.kind = ComponentKind::kBolt;
  c.parallelism = parallelism;
  c.bolt_factory = std::move(factory);
  spec_->components.push_back(std::move(c));
  return BoltDeclarer(&spec_->components, spec_->components.size() - 1);
}

BoltDeclarer TopologyBuilder::SetBolt(std::string id, BasicBoltFactory factory, int parallelism) {
  BoltFactory adapted;
  if (factory) {
    adapted = [factory = std::move(factory)] { return AdaptBasicBolt(factory()); };
  }
  return SetBolt(std::move(id), std::move(adapted), parallelism);
}

std::shared_ptr<const TopologySpec> TopologyBuilder::Build() const {
  auto spec = std::make_shared<TopologySpec>(*spec_);
  for (ComponentSpec& c : spec->components) {
    try {
      c.streams = c.DeclareStreams();
      c.AddFailedStream(c.streams);
    } catch (const std::exception& e) {
      throw InvalidTopologyException(
          fmt::format("Component: [{}] failed to declare its output fields: {}", c.id, e.what()));
    }
  }
  Validate(*spec);
  return spec;
}

}  // namespace tempest::topology

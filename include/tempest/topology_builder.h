#pragma once

// Building a topology in C++ (part of Tempest's public API, tempest/tempest.h).

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tempest/basic_bolt.h"
#include "tempest/bolt.h"
#include "tempest/config.h"
#include "tempest/fields.h"
#include "tempest/grouping.h"
#include "tempest/spout.h"

namespace tempest::topology {

struct ComponentSpec;
struct TopologySpec;

// Declares a bolt's inputs: one call per subscribed stream (Storm's BoltDeclarer). Stream
// defaults to "default". Valid until the builder is destroyed.
class BoltDeclarer {
 public:
  BoltDeclarer& ShuffleGrouping(std::string component, std::string stream = kDefaultStream);
  BoltDeclarer& FieldsGrouping(std::string component, const Fields& fields);
  BoltDeclarer& FieldsGrouping(std::string component, std::string stream, const Fields& fields);
  BoltDeclarer& AllGrouping(std::string component, std::string stream = kDefaultStream);
  BoltDeclarer& GlobalGrouping(std::string component, std::string stream = kDefaultStream);
  BoltDeclarer& NoneGrouping(std::string component, std::string stream = kDefaultStream);
  BoltDeclarer& DirectGrouping(std::string component, std::string stream = kDefaultStream);
  BoltDeclarer& LocalOrShuffleGrouping(std::string component, std::string stream = kDefaultStream);
  BoltDeclarer& PartialKeyGrouping(std::string component, const Fields& fields);
  BoltDeclarer& PartialKeyGrouping(std::string component, std::string stream, const Fields& fields);
  BoltDeclarer& CustomGrouping(std::string component, CustomGroupingFactory grouping);
  BoltDeclarer& CustomGrouping(std::string component, std::string stream,
                               CustomGroupingFactory grouping);
  // Any grouping, as a spec (what the YAML loader uses).
  BoltDeclarer& Grouping(InputSpec input);

 private:
  friend class TopologyBuilder;
  BoltDeclarer(std::vector<ComponentSpec>* components, std::size_t index)
      : components_(components), index_(index) {}
  BoltDeclarer& Add(std::string component, std::string stream, GroupingType type,
                    std::vector<std::string> fields = {}, CustomGroupingFactory custom = {});

  std::vector<ComponentSpec>* components_;
  std::size_t index_;
};

// What SetSpout returns: the spout's own settings.
class SpoutDeclarer {
 public:
  // Tuples this spout gives up after topology.spout.max.retries go to `stream` (declared for
  // the spout, with the fields its streams share), e.g. into a FileSink as a dead-letter file.
  SpoutDeclarer& FailedStream(std::string stream);

 private:
  friend class TopologyBuilder;
  SpoutDeclarer(std::vector<ComponentSpec>* components, std::size_t index)
      : components_(components), index_(index) {}

  std::vector<ComponentSpec>* components_;
  std::size_t index_;
};

// Builds a topology in C++ (Storm's TopologyBuilder). Each factory is called once per task (and
// once more by Build, to ask the component's DeclareOutputFields). Build validates and throws
// InvalidTopologyException before anything runs.
//
//   TopologyBuilder b("word-count");
//   b.SetSpout("sentences", [] { return std::make_unique<SentenceSpout>(); });
//   b.SetBolt("split", [] { return std::make_unique<SplitSentence>(); }, 2)
//       .ShuffleGrouping("sentences");
//   b.SetBolt("count", [] { return std::make_unique<WordCount>(); }, 2)
//       .FieldsGrouping("split", {"word"});
//   return tempest::RunTopology(argc, argv, b);   // tempest/run.h
class TopologyBuilder {
 public:
  explicit TopologyBuilder(std::string name = "topology");
  ~TopologyBuilder();
  TopologyBuilder(const TopologyBuilder&) = delete;
  TopologyBuilder& operator=(const TopologyBuilder&) = delete;

  SpoutDeclarer SetSpout(std::string id, SpoutFactory factory, int parallelism = 1);
  BoltDeclarer SetBolt(std::string id, BoltFactory factory, int parallelism = 1);
  BoltDeclarer SetBolt(std::string id, BasicBoltFactory factory, int parallelism = 1);

  // The topology's settings (topology.workers, topology.max.spout.pending, ...).
  TopologyConfig& Config() noexcept;

  // Declares every component's streams, validates, and returns the immutable topology (what
  // RunTopology runs). Throws InvalidTopologyException.
  std::shared_ptr<const TopologySpec> Build() const;

 private:
  std::unique_ptr<TopologySpec> spec_;
};

}  // namespace tempest::topology

namespace tempest {
using topology::BoltDeclarer;
using topology::TopologyBuilder;
}  // namespace tempest

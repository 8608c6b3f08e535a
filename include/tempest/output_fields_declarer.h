#pragma once

// Declaring a component's output streams (part of Tempest's public API, tempest/tempest.h).

#include <memory>
#include <string>
#include <vector>

#include "tempest/fields.h"

namespace tempest::topology {

// Collects the output streams a spout or bolt declares in DeclareOutputFields. Declaring the same
// stream twice throws std::invalid_argument (Storm: "Fields for <stream> already set").
class OutputFieldsDeclarer {
 public:
  explicit OutputFieldsDeclarer(std::string component) : component_(std::move(component)) {}

  void Declare(Fields fields) { DeclareStream(kDefaultStream, false, std::move(fields)); }
  void Declare(bool direct, Fields fields) {
    DeclareStream(kDefaultStream, direct, std::move(fields));
  }
  void DeclareStream(std::string stream, Fields fields) {
    DeclareStream(std::move(stream), false, std::move(fields));
  }
  void DeclareStream(std::string stream, bool direct, Fields fields);

  // The declared streams, in declaration order.
  std::vector<std::shared_ptr<const StreamSchema>> TakeStreams() { return std::move(streams_); }

 private:
  std::string component_;
  std::vector<std::shared_ptr<const StreamSchema>> streams_;
};

}  // namespace tempest::topology

namespace tempest {
using topology::OutputFieldsDeclarer;
}  // namespace tempest

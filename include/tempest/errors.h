#pragma once

#include <stdexcept>
#include <string>

namespace tempest::topology {

// A topology that cannot run: thrown by validation before anything starts. The message names the
// component, stream or field at fault (Storm's InvalidTopologyException texts where Storm has one).
class InvalidTopologyException : public std::runtime_error {
 public:
  explicit InvalidTopologyException(const std::string& message) : std::runtime_error(message) {}
};

// Thrown by a BasicBolt's Execute to fail its input tuple (Storm's FailedException); the tuple is
// failed quietly, without counting as an error.
class FailedException : public std::runtime_error {
 public:
  explicit FailedException(const std::string& message = "tuple failed")
      : std::runtime_error(message) {}
};

}  // namespace tempest::topology

namespace tempest {
using topology::FailedException;
using topology::InvalidTopologyException;
}  // namespace tempest

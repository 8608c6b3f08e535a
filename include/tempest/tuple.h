#pragma once

// The tuple a bolt receives (part of Tempest's public API, tempest/tempest.h).

#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tempest/fields.h"
#include "tempest/value.h"

namespace tempest::topology {

class TupleAccess;

// Ack-tracking metadata of a tuple (Storm's MessageId), kept by the runtime; not for user code: for
// every spout tuple tree it belongs to, the root id and this tuple's edge id. Empty for untracked
// tuples. One anchor is held inline, so a tuple of one tree (the usual case) allocates nothing for
// it.
struct AckMeta {
  struct Anchor {
    uint64_t root = 0;
    uint64_t edge = 0;
    friend bool operator==(const Anchor&, const Anchor&) = default;
  };
  boost::container::small_vector<Anchor, 1> anchors;
  // The XOR of the edge ids of the tuples emitted anchored to this one so far; the runtime sends
  // it with the ack (Storm's ack value). Mutable because bolts anchor to a const input.
  mutable uint64_t ack_val = 0;
};

// A tuple received by a bolt: its values, the schema of the stream it came on (source component,
// stream id, fields) and the task that emitted it. Read-only for user code: a bolt reads its
// inputs and emits new values. A nothrow-movable value type (copy one to keep it); the schema is
// borrowed (see StreamSchema).
class Tuple {
 public:
  Tuple() = default;
  Tuple(const StreamSchema* schema, int source_task, Values&& values) noexcept
      : values_(std::move(values)), schema_(schema), source_task_(source_task) {}
  // No values yet (a tuple built in place). Unlike Tuple{}, nothing is zeroed first.
  Tuple(const StreamSchema* schema, int source_task) noexcept
      : schema_(schema), source_task_(source_task) {}
  Tuple(const StreamSchema* schema, int source_task, const Values& values)
      : values_(values), schema_(schema), source_task_(source_task) {}
  Tuple(const Tuple&) = default;
  Tuple& operator=(const Tuple&) = default;
  // Values' small_vector does not declare its move noexcept, but moving it only moves
  // nothrow-movable Values into inline storage or steals the heap buffer: it cannot throw.
  Tuple(Tuple&&) noexcept = default;
  Tuple& operator=(Tuple&&) noexcept = default;

  std::size_t size() const noexcept { return values_.size(); }
  const Values& GetValues() const noexcept { return values_; }

  const Value& GetValue(std::size_t i) const { return values_.at(i); }
  const std::string& GetString(std::size_t i) const { return GetValue(i).AsString(); }
  int64_t GetInt(std::size_t i) const { return GetValue(i).AsInt(); }
  double GetDouble(std::size_t i) const { return GetValue(i).AsDouble(); }
  bool GetBool(std::size_t i) const { return GetValue(i).AsBool(); }
  const Bytes& GetBytes(std::size_t i) const { return GetValue(i).AsBytes(); }

  // By-name access; an unknown name throws std::invalid_argument listing the fields.
  const Value& GetValueByField(std::string_view field) const;
  const std::string& GetStringByField(std::string_view f) const {
    return GetValueByField(f).AsString();
  }
  int64_t GetIntByField(std::string_view f) const { return GetValueByField(f).AsInt(); }
  double GetDoubleByField(std::string_view f) const { return GetValueByField(f).AsDouble(); }
  bool Contains(std::string_view field) const noexcept;
  std::size_t FieldIndex(std::string_view field) const { return GetFields().Index(field); }
  // The values of the named fields, in the order given.
  Values Select(const Fields& fields) const;

  const Fields& GetFields() const noexcept;
  const std::string& GetSourceComponent() const noexcept;
  const std::string& GetSourceStreamId() const noexcept;
  int GetSourceTask() const noexcept { return source_task_; }
  GlobalStreamId GetSourceGlobalStreamId() const;
  const StreamSchema* schema() const noexcept { return schema_; }

  // "source:stream[task] [v1, v2]" for logs.
  std::string ToString() const;

 private:
  friend class TupleAccess;  // the runtime's access (topology/tuple.h)

  Values values_;
  const StreamSchema* schema_ = nullptr;
  int source_task_ = -1;
  AckMeta ack_;
};

static_assert(std::is_nothrow_move_constructible_v<Tuple>);
static_assert(std::is_nothrow_move_assignable_v<Tuple>);

}  // namespace tempest::topology

namespace tempest {
using topology::Tuple;
}  // namespace tempest

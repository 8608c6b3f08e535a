#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bolts/expression/expression.h"
#include "topology/fields.h"
#include "topology/row_batch.h"
#include "topology/tuple.h"
#include "topology/value.h"

namespace tempest::bolts {

// One input a condition may reference: as `name:field` (the name matched case-insensitively, as
// in `select`) or `alias:field` ("left" / "right" in the join bolts; empty: no alias).
struct ExprInput {
  std::string name;
  std::string alias;
  std::vector<topology::Fields> fields;  // of every stream the input covers
};

// A parsed condition with its field references resolved to inputs, evaluated with SQL's
// three-valued logic (docs/expressions.md): a comparison or arithmetic with a null operand, or
// with operands of types that do not compare, is null; AND/OR are Kleene's; a condition holds
// only when it is true. Evaluation allocates only when arithmetic or a comparison needs a
// temporary string (never for numbers, booleans or field reads, once a row's long strings have
// been read into reused buffers). Value type; not thread-safe (a per-schema field-index cache
// and the row fields' buffers are filled as tuples come).
class BoundExpression {
 public:
  // Resolves every reference: a qualified one to the input it names, an unqualified one to the
  // first input that declares the field. Throws ExpressionError at the reference, e.g.
  // "at character 12: field \"url\" is not declared by \"clicks\" (declared: log_id, ts)".
  BoundExpression(const ExprNode& node, const std::vector<ExprInput>& inputs);
  BoundExpression(const BoundExpression&);
  BoundExpression& operator=(const BoundExpression&);
  BoundExpression(BoundExpression&&) noexcept;
  BoundExpression& operator=(BoundExpression&&) noexcept;
  ~BoundExpression();

  // The value with `tuples[i]` as input i (nullptr: every field of that input is null).
  topology::Value Evaluate(std::span<const topology::Tuple* const> tuples) const;
  // True only when the value is the boolean true.
  bool Holds(std::span<const topology::Tuple* const> tuples) const;
  // Holds with `row` as input 0, the only one (a filter's batch).
  bool Holds(const topology::RowRef& row) const;
  // Bit i set: the condition reads input i.
  uint64_t inputs() const noexcept { return inputs_; }

  struct Node;  // the bound tree; defined and used only in the .cpp

 private:
  std::unique_ptr<Node> root_;
  uint64_t inputs_ = 0;
  mutable topology::Values row_fields_;  // Holds(row): the fields read, by index, reused
};

}  // namespace tempest::bolts

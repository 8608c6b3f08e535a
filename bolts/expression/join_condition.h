#pragma once

#include <optional>
#include <string_view>

#include "bolts/expression/bound_expression.h"
#include "bolts/expression/expression.h"

namespace tempest::bolts {

// One part of a split join condition: its text form and its bound form (bound against both
// inputs: evaluate it with {left, right}, either may be null for a one-sided part).
struct ConditionPart {
  ExprNode node;
  BoundExpression bound;
};

// A join condition split as Spark splits one (JoinConditionSplitPredicates): the conjuncts of the
// top-level AND that read only the left input (with the ones that read no input at all, as Spark
// does) are the left pre-join filter, those that read only the right input the right pre-join
// filter, and the rest the filter on candidate pairs. A part no conjunct went to is empty.
struct JoinCondition {
  std::optional<ConditionPart> left;
  std::optional<ConditionPart> right;
  std::optional<ConditionPart> pairs;
};

// Parses and binds `text` against the two inputs (names, aliases "left" / "right"). Throws
// ExpressionError.
JoinCondition SplitJoinCondition(std::string_view text, const ExprInput& left,
                                 const ExprInput& right);

}  // namespace tempest::bolts

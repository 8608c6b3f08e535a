#include "bolts/expression/join_condition.h"

#include <utility>
#include <vector>

namespace tempest::bolts {

namespace {

// The conjuncts as one node: the conjunct itself, or an AND of them.
ExprNode Conjunction(std::vector<ExprNode> conjuncts) {
  if (conjuncts.size() == 1) return std::move(conjuncts.front());
  ExprNode n;
  n.kind = ExprNode::Kind::kAnd;
  n.position = conjuncts.front().position;
  n.children = std::move(conjuncts);
  return n;
}

}  // namespace

JoinCondition SplitJoinCondition(std::string_view text, const ExprInput& left,
                                 const ExprInput& right) {
  const std::vector<ExprInput> inputs = {left, right};
  std::vector<ExprNode> parts[3];  // left only (or none), right only, both
  for (ExprNode& c : SplitConjuncts(ParseExpression(text))) {
    const uint64_t reads = BoundExpression(c, inputs).inputs();
    parts[reads == 2 ? 1 : (reads == 3 ? 2 : 0)].push_back(std::move(c));
  }
  JoinCondition out;
  std::optional<ConditionPart>* slots[3] = {&out.left, &out.right, &out.pairs};
  for (int i = 0; i < 3; ++i) {
    if (parts[i].empty()) continue;
    ExprNode node = Conjunction(std::move(parts[i]));
    BoundExpression bound(node, inputs);
    slots[i]->emplace(ConditionPart{std::move(node), std::move(bound)});
  }
  return out;
}

}  // namespace tempest::bolts

#include "bolts/join/join_time_bounds.h"

#include <algorithm>
#include <cmath>

namespace tempest::bolts {

namespace {

// A linear sum c[0]·left.ts + c[1]·right.ts + constant.
struct Linear {
  double c[2] = {0, 0};
  double constant = 0;
};

// Adds `sign` times `node` to `out`; false if the node is not a linear sum of time fields and
// numeric literals.
bool Flatten(const ExprNode& node, double sign, const TimeFieldSide& side_of, Linear& out) {
  switch (node.kind) {
    case ExprNode::Kind::kLiteral:
      if (node.literal.type() == topology::ValueType::kInt) {
        out.constant += sign * static_cast<double>(node.literal.AsInt());
        return true;
      }
      if (node.literal.type() == topology::ValueType::kDouble) {
        out.constant += sign * node.literal.AsDouble();
        return true;
      }
      return false;
    case ExprNode::Kind::kField: {
      const int side = side_of(node);
      if (side < 0) return false;
      out.c[side] += sign;
      return true;
    }
    case ExprNode::Kind::kNegate:
      return Flatten(node.children[0], -sign, side_of, out);
    case ExprNode::Kind::kArithmetic:
      if (node.op == ExprNode::Op::kAdd) {
        return Flatten(node.children[0], sign, side_of, out) &&
               Flatten(node.children[1], sign, side_of, out);
      }
      if (node.op == ExprNode::Op::kSub) {
        return Flatten(node.children[0], sign, side_of, out) &&
               Flatten(node.children[1], -sign, side_of, out);
      }
      return false;
    case ExprNode::Kind::kNot:
    case ExprNode::Kind::kAnd:
    case ExprNode::Kind::kOr:
    case ExprNode::Kind::kCompare:
    case ExprNode::Kind::kIsNull:
    case ExprNode::Kind::kIsNotNull:
      return false;
  }
  return false;
}

// From `lhs - rhs < 0` (strict) or `<= 0`: the bound it puts on either side, kept if tighter.
void Bound(const Linear& f, bool strict, JoinTimeBounds& out) {
  for (int x = 0; x < 2; ++x) {
    const int y = 1 - x;
    // -x.ts + y.ts + constant < 0  =>  x.ts > y.ts + constant.
    if (f.c[x] != -1 || f.c[y] != 1 || !std::isfinite(f.constant)) continue;
    if (std::fabs(f.constant) > 9e15) continue;  // beyond exact int64 milliseconds
    const double k = strict ? std::floor(f.constant) + 1 : std::ceil(f.constant);
    const auto lead = static_cast<int64_t>(k);
    if (!out.min_lead[x] || lead > *out.min_lead[x]) out.min_lead[x] = lead;
  }
}

}  // namespace

JoinTimeBounds SolveJoinTimeBounds(const ExprNode& condition, const TimeFieldSide& side_of) {
  JoinTimeBounds out;
  for (const ExprNode& c : SplitConjuncts(condition)) {
    if (c.kind != ExprNode::Kind::kCompare) continue;
    const ExprNode* small = &c.children[0];
    const ExprNode* large = &c.children[1];
    bool strict = false;
    bool both = false;  // `=`: <= both ways
    switch (c.op) {
      case ExprNode::Op::kLt:
        strict = true;
        break;
      case ExprNode::Op::kLe:
        break;
      case ExprNode::Op::kGt:
        strict = true;
        std::swap(small, large);
        break;
      case ExprNode::Op::kGe:
        std::swap(small, large);
        break;
      case ExprNode::Op::kEq:
        both = true;
        break;
      case ExprNode::Op::kNone:
      case ExprNode::Op::kNe:
      case ExprNode::Op::kAdd:
      case ExprNode::Op::kSub:
      case ExprNode::Op::kMul:
      case ExprNode::Op::kDiv:
      case ExprNode::Op::kMod:
        continue;
    }
    Linear f;  // small - large
    if (!Flatten(*small, 1, side_of, f) || !Flatten(*large, -1, side_of, f)) continue;
    Bound(f, strict, out);
    if (both) {
      Linear g;
      g.c[0] = -f.c[0];
      g.c[1] = -f.c[1];
      g.constant = -f.constant;
      Bound(g, false, out);
    }
  }
  return out;
}

}  // namespace tempest::bolts

#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "bolts/expression/expression.h"

namespace tempest::bolts {

// What a join condition says about how far apart the two sides' event times may be: for each
// side X, the largest k such that every pair satisfies X.ts >= other.ts + k (none: X's times are
// not bounded from below by the other side's). In append mode this is what lets a row leave:
// once the watermark W is above X.ts - k, every right row still to come (ts >= W) is too late to
// pair with it (Spark's state watermark, getStateValueWatermark).
struct JoinTimeBounds {
  std::optional<int64_t> min_lead[2];  // [0]: left.ts >= right.ts + k; [1]: the reverse
};

// Which side's event-time field a field reference is: 0 left, 1 right, -1 another field.
using TimeFieldSide = std::function<int(const ExprNode& field)>;

// Solves the top-level conjuncts of `condition` that compare (`< <= > >= =`) linear sums of the
// two time fields and numeric literals (`+`, `-`, unary minus; literals are milliseconds), as
// Spark does: a conjunct bounds X when, moved to one side, X's field has coefficient -1 and the
// other side's +1 (`left:ts > right:ts - 5000` bounds left: k = -4999). Anything else in a
// conjunct (another field, `*`, a string) makes that conjunct say nothing; OR and NOT say
// nothing. Of several bounds on one side the tightest (largest k) holds, since a pair must meet
// every conjunct (Spark keeps the loosest).
JoinTimeBounds SolveJoinTimeBounds(const ExprNode& condition, const TimeFieldSide& side_of);

}  // namespace tempest::bolts

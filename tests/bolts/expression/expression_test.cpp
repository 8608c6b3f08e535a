// Conditions (docs/expressions.md): the grammar's precedence and spelling, every parse error
// with its position, conjunct splitting, binding errors, and evaluation with SQL's
// three-valued logic over real tuples, including a padded (absent) side.
#include "bolts/expression/expression.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "bolts/expression/bound_expression.h"
#include "bolts/expression/join_condition.h"
#include "topology/stream_schema.h"

namespace tempest::bolts {
namespace {

using topology::Fields;
using topology::Tuple;
using topology::Value;
using topology::Values;

std::string Canonical(const std::string& text) { return ExprToString(ParseExpression(text)); }

std::string ParseError(const std::string& text) {
  try {
    ParseExpression(text);
  } catch (const ExpressionError& e) {
    return std::to_string(e.position()) + ": " + e.what();
  }
  return "(parsed)";
}

TEST(ExpressionParseTest, OrBindsLooserThanAndThanNotThanComparisons) {
  EXPECT_EQ(Canonical("a:x = 1 OR b:y > 2 AND NOT c:z IS NULL"),
            "(a:x = 1) OR ((b:y > 2) AND (NOT (c:z IS NULL)))");
  EXPECT_EQ(Canonical("NOT a = b"), "NOT (a = b)");
  EXPECT_EQ(Canonical("(a OR b) AND c"), "(a OR b) AND c");
}

TEST(ExpressionParseTest, ArithmeticHasTheUsualPrecedenceAndAssociatesLeft) {
  EXPECT_EQ(Canonical("1 + 2 * 3 - 4 % 3"), "(1 + (2 * 3)) - (4 % 3)");
  EXPECT_EQ(Canonical("a - b - c"), "(a - b) - c");
  EXPECT_EQ(Canonical("right:ts <= left:ts + 600000"), "right:ts <= (left:ts + 600000)");
  EXPECT_EQ(Canonical("-x * -2"), "(-x) * -2");
}

TEST(ExpressionParseTest, KeywordsAnyCaseLiteralsAndOperatorSpellings) {
  EXPECT_EQ(Canonical("x is not null and y = 'it''s'"), "(x IS NOT NULL) AND (y = 'it''s')");
  EXPECT_EQ(Canonical("a <> b"), "a != b");
  EXPECT_EQ(Canonical("a:b.c.d >= 1.5"), "a:b.c.d >= 1.5");
  EXPECT_EQ(Canonical("flag = TRUE or flag = false or v = NULL"),
            "(flag = true) OR (flag = false) OR (v = null)");
  EXPECT_EQ(Canonical("-9223372036854775808 < x"), "-9223372036854775808 < x");
}

TEST(ExpressionParseTest, ErrorsNameThePositionAndTheToken) {
  EXPECT_EQ(ParseError(""), "0: the condition is empty");
  EXPECT_EQ(ParseError("a = "),
            "4: at character 4 (the end): expected a value: a literal, a field or \"(\"");
  EXPECT_EQ(ParseError("(a = 1"), "6: at character 6 (the end): expected \")\"");
  EXPECT_EQ(ParseError("a = 1 b"),
            "6: at character 6 (\"b\"): expected AND, OR, an operator or the end");
  EXPECT_EQ(ParseError("a < b < c"),
            "6: at character 6 (\"<\"): expected AND, OR, an operator or the end");
  EXPECT_EQ(ParseError("a = 'x"),
            "4: at character 4: the string is not closed (a ' is missing; write '' for a quote "
            "inside)");
  EXPECT_EQ(ParseError("a ! b"),
            "2: at character 2: \"!\" alone is not an operator (\"!=\" is; negation is NOT)");
  EXPECT_EQ(ParseError("a IS 5"), "5: at character 5 (\"5\"): expected NULL or NOT NULL after IS");
  EXPECT_EQ(ParseError("AND x"),
            "0: at character 0 (\"AND\"): expected a value: a literal, a field or \"(\"");
  EXPECT_EQ(ParseError("x = 99999999999999999999"),
            "4: at character 4: 99999999999999999999 does not fit in a 64-bit integer");
  // Found by the expression fuzzer: a decimal beyond a double's range threw out of the parser.
  const std::string huge = std::string(400, '5') + ".1";
  EXPECT_EQ(ParseError("x < " + huge), "4: at character 4: " + huge + " does not fit in a double");
  const std::string tiny = "0." + std::string(400, '0') + "1";
  EXPECT_EQ(ParseError("x > -" + tiny),
            "5: at character 5: -" + tiny + " does not fit in a double");
  EXPECT_EQ(ParseError("a # b"), "2: at character 2: unexpected \"#\"");
  EXPECT_EQ(ParseError("left: = 1"),
            "6: at character 6 (\"=\"): expected a field name after \"left:\"");
  EXPECT_EQ(ParseError("3x > 1"), "0: at character 0: \"3x\" is not a number");
}

// Found by the expression fuzzer: 4<((((((…66<((((… overflowed the stack. Nesting is bounded.
TEST(ExpressionParseTest, NestingDeeperThanAHundredLevelsIsAnError) {
  const auto nested = [](const std::string& open, int levels) {
    std::string text;
    for (int i = 0; i < levels; ++i) text += open;
    return text + "a > 1";
  };
  EXPECT_NO_THROW(ParseExpression(std::string(100, '(') + "a > 1" + std::string(100, ')')));
  EXPECT_EQ(ParseError(std::string(101, '(') + "a > 1" + std::string(101, ')')),
            "101: at character 101: nested deeper than 100 levels of parentheses, NOT and minus");
  EXPECT_EQ(ParseError(nested("NOT ", 101)),
            "404: at character 404: nested deeper than 100 levels of parentheses, NOT and minus");
  std::string minus = "x = ";
  for (int i = 0; i < 101; ++i) minus += "- ";
  EXPECT_EQ(ParseError(minus + "y"),
            "206: at character 206: nested deeper than 100 levels of parentheses, NOT and minus");
  EXPECT_EQ(ParseError("4<" + std::string(100000, '(')),
            "103: at character 103: nested deeper than 100 levels of parentheses, NOT and minus");
}

TEST(ExpressionParseTest, ConjunctsAreTheTopLevelAndOperands) {
  const std::vector<ExprNode> parts =
      SplitConjuncts(ParseExpression("a:x = 1 AND b:y = 2 AND (a:z > 0 OR b:w > 0)"));
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(ExprToString(parts[2]), "(a:z > 0) OR (b:w > 0)");
  EXPECT_EQ(SplitConjuncts(ParseExpression("a OR b")).size(), 1u);
}

// Two inputs as the join bolts name them: shows (alias left) and clicks (alias right).
class ExpressionEvalTest : public ::testing::Test {
 protected:
  ExpressionEvalTest() {
    shows_.fields = std::make_shared<const Fields>(Fields{"log_id", "ad", "ts", "meta"});
    clicks_.fields = std::make_shared<const Fields>(Fields{"log_id", "ts"});
    inputs_ = {{"shows", "left", {*shows_.fields}}, {"clicks", "right", {*clicks_.fields}}};
  }

  BoundExpression Bind(const std::string& text) const {
    return BoundExpression(ParseExpression(text), inputs_);
  }
  std::string BindError(const std::string& text) const {
    try {
      Bind(text);
    } catch (const ExpressionError& e) {
      return e.what();
    }
    return "(bound)";
  }
  // Evaluates over a show and a click (either may be absent: a padded side).
  Value Eval(const std::string& text, const Tuple* show, const Tuple* click) const {
    const Tuple* tuples[] = {show, click};
    return Bind(text).Evaluate(tuples);
  }
  Tuple Show(Value id, Value ad, int64_t ts, Value meta = Value()) const {
    return Tuple(&shows_, 1, Values{std::move(id), std::move(ad), Value(ts), std::move(meta)});
  }
  Tuple Click(Value id, int64_t ts) const {
    return Tuple(&clicks_, 1, Values{std::move(id), Value(ts)});
  }

  topology::StreamSchema shows_, clicks_;
  std::vector<ExprInput> inputs_;
};

TEST_F(ExpressionEvalTest, ReferencesResolveByNameAliasOrFirstDeclaringInput) {
  EXPECT_EQ(Bind("clicks:ts >= shows:ts AND right:ts <= left:ts + 600000").inputs(), 3u);
  EXPECT_EQ(Bind("SHOWS:ad = 'tea'").inputs(), 1u);
  EXPECT_EQ(Bind("ad = 'tea'").inputs(), 1u);
  EXPECT_EQ(Bind("ts > 0").inputs(), 1u);  // the first input that declares it
  EXPECT_EQ(Bind("1 = 1").inputs(), 0u);
}

TEST_F(ExpressionEvalTest, BindingErrorsNameTheReference) {
  EXPECT_EQ(BindError("shows:ts < views:ts"),
            "at character 11: \"views\" names no input (inputs: shows, clicks)");
  EXPECT_EQ(BindError("shows:ad = 'x' AND clicks:url = 'y'"),
            "at character 19: field \"url\" is not declared by \"clicks\" (declared: log_id, ts)");
  EXPECT_EQ(BindError("price > 3"),
            "at character 0: field \"price\" is not declared by any input (shows: log_id, ad, ts, "
            "meta; clicks: log_id, ts)");
}

TEST_F(ExpressionEvalTest, ComparisonsAndArithmetic) {
  const Tuple s = Show(1, "tea", 1000);
  const Tuple c = Click(1, 1300);
  EXPECT_EQ(Eval("right:ts - left:ts", &s, &c), Value(300));
  EXPECT_EQ(Eval("clicks:ts >= shows:ts AND clicks:ts <= shows:ts + 600000", &s, &c), Value(true));
  EXPECT_EQ(Eval("shows:ad = 'tea'", &s, &c), Value(true));
  EXPECT_EQ(Eval("shows:ad < 'tub'", &s, &c), Value(true));
  EXPECT_EQ(Eval("7 / 2", &s, &c), Value(3));
  EXPECT_EQ(Eval("-7 / 2", &s, &c), Value(-3));
  EXPECT_EQ(Eval("7 % 3", &s, &c), Value(1));
  EXPECT_EQ(Eval("7.0 / 2", &s, &c), Value(3.5));
  EXPECT_EQ(Eval("1 = 1.0", &s, &c), Value(true));
  EXPECT_EQ(Eval("true <> false", &s, &c), Value(true));
}

TEST_F(ExpressionEvalTest, NoResultIsNull) {
  const Tuple s = Show(1, "tea", 1000);
  const Tuple c = Click(1, 1300);
  for (const char* text :
       {"1 / 0", "5 % 0", "1.5 / 0", "9223372036854775807 + 1", "-9223372036854775808 * -1",
        "'a' < 1", "'a' + 1", "NOT 5", "shows:ad - 1", "-shows:ad"}) {
    EXPECT_TRUE(Eval(text, &s, &c).IsNull()) << text;
  }
}

TEST_F(ExpressionEvalTest, NullsFollowThreeValuedLogic) {
  const Tuple s = Show(1, Value(), 1000);  // ad is null
  const Tuple c = Click(1, 1300);
  EXPECT_TRUE(Eval("shows:ad = 'tea'", &s, &c).IsNull());
  EXPECT_TRUE(Eval("NOT (shows:ad = 'tea')", &s, &c).IsNull());
  EXPECT_EQ(Eval("shows:ad = 'tea' AND 1 = 2", &s, &c), Value(false));
  EXPECT_TRUE(Eval("shows:ad = 'tea' AND 1 = 1", &s, &c).IsNull());
  EXPECT_EQ(Eval("shows:ad = 'tea' OR 1 = 1", &s, &c), Value(true));
  EXPECT_TRUE(Eval("shows:ad = 'tea' OR 1 = 2", &s, &c).IsNull());
  EXPECT_EQ(Eval("shows:ad IS NULL", &s, &c), Value(true));
  EXPECT_EQ(Eval("shows:ad IS NOT NULL", &s, &c), Value(false));
  // A padded side: every field of it is null.
  EXPECT_EQ(Eval("clicks:ts IS NULL", &s, nullptr), Value(true));
  EXPECT_TRUE(Eval("clicks:ts > shows:ts", &s, nullptr).IsNull());
  const Tuple* padded[] = {&s, nullptr};
  EXPECT_FALSE(Bind("clicks:ts > shows:ts").Holds(padded));
  EXPECT_TRUE(Bind("clicks:ts IS NULL AND shows:ts = 1000").Holds(padded));
}

TEST_F(ExpressionEvalTest, NestedPathsLookUpMapKeys) {
  const Tuple s = Show(1, "tea", 1000, Value(topology::Map{{Value("lang"), Value("en")}}));
  const Tuple c = Click(1, 1300);
  EXPECT_EQ(Eval("shows:meta.lang = 'en'", &s, &c), Value(true));
  EXPECT_TRUE(Eval("shows:meta.missing IS NULL", &s, &c).AsBool());
}

TEST_F(ExpressionEvalTest, TuplesOfSeveralSchemasReadTheirOwnFieldIndex) {
  topology::StreamSchema other;
  other.fields = std::make_shared<const Fields>(Fields{"ts", "log_id"});  // same names, swapped
  inputs_[1].fields.push_back(*other.fields);
  const BoundExpression e = Bind("clicks:log_id = 7");
  const Tuple s = Show(7, "tea", 0);
  const Tuple a = Click(7, 100);
  const Tuple b(&other, 1, Values{Value(100), Value(7)});
  const Tuple* first[] = {&s, &a};
  const Tuple* second[] = {&s, &b};
  EXPECT_TRUE(e.Holds(first));
  EXPECT_TRUE(e.Holds(second));
}

TEST_F(ExpressionEvalTest, AJoinConditionSplitsIntoSideFiltersAndAPairFilterAsSparkDoes) {
  const JoinCondition c = SplitJoinCondition(
      "shows:ad = 'tea' AND clicks:ts >= shows:ts AND right:ts <= left:ts + 600000 AND "
      "right:log_id > 0 AND 1 = 1 AND (shows:ts > 5 OR clicks:ts > 5)",
      inputs_[0], inputs_[1]);
  ASSERT_TRUE(c.left && c.right && c.pairs);
  EXPECT_EQ(ExprToString(c.left->node), "(shows:ad = 'tea') AND (1 = 1)");  // constants: left
  EXPECT_EQ(ExprToString(c.right->node), "right:log_id > 0");
  EXPECT_EQ(ExprToString(c.pairs->node),
            "(clicks:ts >= shows:ts) AND (right:ts <= (left:ts + 600000)) AND ((shows:ts > 5) OR "
            "(clicks:ts > 5))");
  const Tuple s = Show(1, "tea", 1000);
  const Tuple k = Click(1, 1300);
  const Tuple* left_only[] = {&s, nullptr};
  const Tuple* right_only[] = {nullptr, &k};
  const Tuple* pair[] = {&s, &k};
  EXPECT_TRUE(c.left->bound.Holds(left_only));
  EXPECT_TRUE(c.right->bound.Holds(right_only));
  EXPECT_TRUE(c.pairs->bound.Holds(pair));
  const JoinCondition only_pairs =
      SplitJoinCondition("left:log_id = right:log_id", inputs_[0], inputs_[1]);
  EXPECT_FALSE(only_pairs.left || only_pairs.right);
  EXPECT_TRUE(only_pairs.pairs);
}

}  // namespace
}  // namespace tempest::bolts

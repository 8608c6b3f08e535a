#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "topology/value.h"

namespace tempest::bolts {

// A condition that does not parse or bind. `position` is the 0-based character offset in the
// condition's text; the message says what was expected and what was found there.
class ExpressionError : public std::invalid_argument {
 public:
  ExpressionError(std::size_t position, const std::string& message);
  std::size_t position() const noexcept { return position_; }

 private:
  std::size_t position_;
};

// The parsed form of a condition (docs/expressions.md): a tree of value-type nodes.
struct ExprNode {
  enum class Kind {
    kLiteral,     // `literal`
    kField,       // `qualifier:path` (qualifier empty when unqualified)
    kNot,         // NOT children[0]
    kAnd,         // children[0] AND children[1] AND ...
    kOr,          // children[0] OR children[1] OR ...
    kCompare,     // children[0] op children[1]
    kIsNull,      // children[0] IS NULL
    kIsNotNull,   // children[0] IS NOT NULL
    kArithmetic,  // children[0] op children[1]
    kNegate,      // - children[0]
  };
  enum class Op { kNone, kEq, kNe, kLt, kLe, kGt, kGe, kAdd, kSub, kMul, kDiv, kMod };

  Kind kind = Kind::kLiteral;
  Op op = Op::kNone;
  topology::Value literal;
  std::string qualifier;          // kField: the input's name, "left", "right", or empty
  std::vector<std::string> path;  // kField: the field, then map keys
  std::vector<ExprNode> children;
  std::size_t position = 0;  // where the node starts in the text
};

// Parses `text` with the grammar of docs/expressions.md: OR, AND, NOT (case-insensitive, that
// precedence), comparisons `= != <> < <= > >=`, IS [NOT] NULL, `+ - * / %`, unary minus,
// parentheses, literals (integers, decimals, 'quoted strings' with '' for a quote, true, false,
// null) and field references `name:field.path` or `field.path`. Throws ExpressionError, e.g.
// "at character 9 (\")\"): expected a value: a literal, a field or \"(\"".
ExprNode ParseExpression(std::string_view text);

// The operands of the top-level AND (the node itself if it is not an AND).
std::vector<ExprNode> SplitConjuncts(const ExprNode& node);

// The node back as text, fully parenthesised below the top: for messages and tests.
std::string ExprToString(const ExprNode& node);

}  // namespace tempest::bolts

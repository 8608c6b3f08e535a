#include "bolts/expression/expression.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdint>
#include <utility>

namespace tempest::bolts {

ExpressionError::ExpressionError(std::size_t position, const std::string& message)
    : std::invalid_argument(message), position_(position) {}

namespace {

enum class Tok {
  kEnd,
  kIdent,
  kInt,
  kDecimal,
  kString,
  kLParen,
  kRParen,
  kColon,
  kDot,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
};

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // as written (a string literal: its value)
  std::size_t position = 0;
};

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentPart(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool KeywordIs(const Token& t, std::string_view word) {
  if (t.kind != Tok::kIdent || t.text.size() != word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(t.text[i])) != word[i]) return false;
  }
  return true;
}

std::vector<Token> Lex(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.position = i;
    if (IsIdentStart(c)) {
      std::size_t j = i + 1;
      while (j < s.size() && IsIdentPart(s[j])) ++j;
      t.kind = Tok::kIdent;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      t.kind = Tok::kInt;
      if (j + 1 < s.size() && s[j] == '.' && std::isdigit(static_cast<unsigned char>(s[j + 1]))) {
        t.kind = Tok::kDecimal;
        ++j;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      }
      if (j < s.size() && IsIdentStart(s[j])) {
        throw ExpressionError(
            i, fmt::format("at character {}: \"{}\" is not a number", i, s.substr(i, j - i + 1)));
      }
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (c == '\'') {
      std::string value;
      std::size_t j = i + 1;
      for (;; ++j) {
        if (j >= s.size()) {
          throw ExpressionError(i, fmt::format("at character {}: the string is not closed (a ' "
                                               "is missing; write '' for a quote inside)",
                                               i));
        }
        if (s[j] == '\'') {
          if (j + 1 < s.size() && s[j + 1] == '\'') {
            value += '\'';
            ++j;
            continue;
          }
          break;
        }
        value += s[j];
      }
      t.kind = Tok::kString;
      t.text = std::move(value);
      i = j + 1;
    } else {
      auto two = [&](char next) { return i + 1 < s.size() && s[i + 1] == next; };
      std::size_t len = 1;
      switch (c) {
        case '(':
          t.kind = Tok::kLParen;
          break;
        case ')':
          t.kind = Tok::kRParen;
          break;
        case ':':
          t.kind = Tok::kColon;
          break;
        case '.':
          t.kind = Tok::kDot;
          break;
        case '=':
          t.kind = Tok::kEq;
          break;
        case '+':
          t.kind = Tok::kPlus;
          break;
        case '-':
          t.kind = Tok::kMinus;
          break;
        case '*':
          t.kind = Tok::kStar;
          break;
        case '/':
          t.kind = Tok::kSlash;
          break;
        case '%':
          t.kind = Tok::kPercent;
          break;
        case '!':
          if (!two('=')) {
            throw ExpressionError(i, fmt::format("at character {}: \"!\" alone is not an "
                                                 "operator (\"!=\" is; negation is NOT)",
                                                 i));
          }
          t.kind = Tok::kNe;
          len = 2;
          break;
        case '<':
          if (two('=')) {
            t.kind = Tok::kLe;
            len = 2;
          } else if (two('>')) {
            t.kind = Tok::kNe;
            len = 2;
          } else {
            t.kind = Tok::kLt;
          }
          break;
        case '>':
          t.kind = two('=') ? Tok::kGe : Tok::kGt;
          len = two('=') ? 2 : 1;
          break;
        default:
          throw ExpressionError(i, fmt::format("at character {}: unexpected \"{}\"", i, c));
      }
      t.text = std::string(s.substr(i, len));
      i += len;
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.position = s.size();
  out.push_back(end);
  return out;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : tokens_(Lex(text)) {}

  // How deep parentheses, NOT and unary minus may nest: the parser and every walk of the tree
  // recurse once per level, and a condition is written by hand.
  static constexpr int kMaxNesting = 100;

  ExprNode Parse() {
    if (Peek().kind == Tok::kEnd) throw ExpressionError(0, "the condition is empty");
    ExprNode root = Or();
    if (Peek().kind != Tok::kEnd) Fail("expected AND, OR, an operator or the end");
    return root;
  }

 private:
  const Token& Peek() const { return tokens_[at_]; }
  const Token& Next() { return tokens_[at_++]; }

  [[noreturn]] void Fail(const std::string& expected) const {
    const Token& t = Peek();
    const std::string found = t.kind == Tok::kEnd      ? "the end"
                              : t.kind == Tok::kString ? "'" + t.text + "'"
                                                       : "\"" + t.text + "\"";
    throw ExpressionError(t.position,
                          fmt::format("at character {} ({}): {}", t.position, found, expected));
  }

  static ExprNode Node(ExprNode::Kind kind, ExprNode::Op op, std::size_t position,
                       std::vector<ExprNode> children) {
    ExprNode n;
    n.kind = kind;
    n.op = op;
    n.position = position;
    n.children = std::move(children);
    return n;
  }

  ExprNode Or() {
    ExprNode first = And();
    if (!KeywordIs(Peek(), "OR")) return first;
    const std::size_t position = first.position;
    std::vector<ExprNode> items;
    items.push_back(std::move(first));
    while (KeywordIs(Peek(), "OR")) {
      Next();
      items.push_back(And());
    }
    return Node(ExprNode::Kind::kOr, ExprNode::Op::kNone, position, std::move(items));
  }

  ExprNode And() {
    ExprNode first = Not();
    if (!KeywordIs(Peek(), "AND")) return first;
    const std::size_t position = first.position;
    std::vector<ExprNode> items;
    items.push_back(std::move(first));
    while (KeywordIs(Peek(), "AND")) {
      Next();
      items.push_back(Not());
    }
    return Node(ExprNode::Kind::kAnd, ExprNode::Op::kNone, position, std::move(items));
  }

  // One level deeper for what follows the current token; throws past kMaxNesting.
  struct Level {
    explicit Level(Parser& p) : parser(p) {
      if (++parser.depth_ > kMaxNesting) {
        const std::size_t position = parser.Peek().position;
        throw ExpressionError(position, fmt::format("at character {}: nested deeper than {} "
                                                    "levels of parentheses, NOT and minus",
                                                    position, kMaxNesting));
      }
    }
    ~Level() { --parser.depth_; }
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;
    Parser& parser;
  };

  ExprNode Not() {
    if (KeywordIs(Peek(), "NOT")) {
      const std::size_t position = Next().position;
      const Level level(*this);
      std::vector<ExprNode> operand;
      operand.push_back(Not());
      return Node(ExprNode::Kind::kNot, ExprNode::Op::kNone, position, std::move(operand));
    }
    return Comparison();
  }

  ExprNode Comparison() {
    ExprNode left = Additive();
    const std::size_t position = left.position;
    if (KeywordIs(Peek(), "IS")) {
      Next();
      bool negated = false;
      if (KeywordIs(Peek(), "NOT")) {
        Next();
        negated = true;
      }
      if (!KeywordIs(Peek(), "NULL"))
        Fail(negated ? "expected NULL after IS NOT" : "expected NULL or NOT NULL after IS");
      Next();
      std::vector<ExprNode> operand;
      operand.push_back(std::move(left));
      return Node(negated ? ExprNode::Kind::kIsNotNull : ExprNode::Kind::kIsNull,
                  ExprNode::Op::kNone, position, std::move(operand));
    }
    ExprNode::Op op = ExprNode::Op::kNone;
    switch (Peek().kind) {
      case Tok::kEq:
        op = ExprNode::Op::kEq;
        break;
      case Tok::kNe:
        op = ExprNode::Op::kNe;
        break;
      case Tok::kLt:
        op = ExprNode::Op::kLt;
        break;
      case Tok::kLe:
        op = ExprNode::Op::kLe;
        break;
      case Tok::kGt:
        op = ExprNode::Op::kGt;
        break;
      case Tok::kGe:
        op = ExprNode::Op::kGe;
        break;
      default:
        return left;
    }
    Next();
    std::vector<ExprNode> operands;
    operands.push_back(std::move(left));
    operands.push_back(Additive());
    return Node(ExprNode::Kind::kCompare, op, position, std::move(operands));
  }

  ExprNode Additive() {
    ExprNode left = Multiplicative();
    for (;;) {
      ExprNode::Op op;
      if (Peek().kind == Tok::kPlus) {
        op = ExprNode::Op::kAdd;
      } else if (Peek().kind == Tok::kMinus) {
        op = ExprNode::Op::kSub;
      } else {
        return left;
      }
      Next();
      const std::size_t position = left.position;
      std::vector<ExprNode> operands;
      operands.push_back(std::move(left));
      operands.push_back(Multiplicative());
      left = Node(ExprNode::Kind::kArithmetic, op, position, std::move(operands));
    }
  }

  ExprNode Multiplicative() {
    ExprNode left = Unary();
    for (;;) {
      ExprNode::Op op;
      switch (Peek().kind) {
        case Tok::kStar:
          op = ExprNode::Op::kMul;
          break;
        case Tok::kSlash:
          op = ExprNode::Op::kDiv;
          break;
        case Tok::kPercent:
          op = ExprNode::Op::kMod;
          break;
        default:
          return left;
      }
      Next();
      const std::size_t position = left.position;
      std::vector<ExprNode> operands;
      operands.push_back(std::move(left));
      operands.push_back(Unary());
      left = Node(ExprNode::Kind::kArithmetic, op, position, std::move(operands));
    }
  }

  ExprNode Unary() {
    if (Peek().kind == Tok::kMinus) {
      const std::size_t position = Next().position;
      // A negative literal stays a literal (so -9223372036854775808 is representable).
      if (Peek().kind == Tok::kInt || Peek().kind == Tok::kDecimal) {
        ExprNode n = Literal("-");
        n.position = position;
        return n;
      }
      const Level level(*this);
      std::vector<ExprNode> operand;
      operand.push_back(Unary());
      return Node(ExprNode::Kind::kNegate, ExprNode::Op::kNone, position, std::move(operand));
    }
    return Primary();
  }

  ExprNode Literal(const std::string& sign) {
    const Token& t = Next();
    ExprNode n;
    n.kind = ExprNode::Kind::kLiteral;
    n.position = t.position;
    const std::string text = sign + t.text;
    n.literal = t.kind == Tok::kInt
                    ? topology::Value(Number<int64_t>(text, t.position, "a 64-bit integer"))
                    : topology::Value(Number<double>(text, t.position, "a double"));
    return n;
  }

  // `text` (a literal's digits, with its sign) as a T; an error at `position` if it is out of
  // T's range.
  template <typename T>
  static T Number(const std::string& text, std::size_t position, const char* type) {
    T v{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) {
      throw ExpressionError(
          position, fmt::format("at character {}: {} does not fit in {}", position, text, type));
    }
    return v;
  }

  ExprNode Primary() {
    const Token& t = Peek();
    switch (t.kind) {
      case Tok::kInt:
      case Tok::kDecimal:
        return Literal("");
      case Tok::kString: {
        ExprNode n;
        n.kind = ExprNode::Kind::kLiteral;
        n.position = t.position;
        n.literal = topology::Value(Next().text);
        return n;
      }
      case Tok::kLParen: {
        Next();
        const Level level(*this);
        ExprNode inner = Or();
        if (Peek().kind != Tok::kRParen) Fail("expected \")\"");
        Next();
        return inner;
      }
      case Tok::kIdent:
        return Identifier();
      default:
        Fail("expected a value: a literal, a field or \"(\"");
    }
  }

  ExprNode Identifier() {
    const Token& t = Peek();
    for (const char* word : {"AND", "OR", "NOT", "IS"}) {
      if (KeywordIs(t, word)) Fail("expected a value: a literal, a field or \"(\"");
    }
    ExprNode n;
    n.position = t.position;
    if (KeywordIs(t, "TRUE") || KeywordIs(t, "FALSE") || KeywordIs(t, "NULL")) {
      n.kind = ExprNode::Kind::kLiteral;
      if (!KeywordIs(t, "NULL")) n.literal = topology::Value(KeywordIs(t, "TRUE"));
      Next();
      return n;
    }
    n.kind = ExprNode::Kind::kField;
    std::string first = Next().text;
    if (Peek().kind == Tok::kColon) {
      Next();
      if (Peek().kind != Tok::kIdent)
        Fail(fmt::format("expected a field name after \"{}:\"", first));
      n.qualifier = std::move(first);
      n.path.push_back(Next().text);
    } else {
      n.path.push_back(std::move(first));
    }
    while (Peek().kind == Tok::kDot) {
      Next();
      if (Peek().kind != Tok::kIdent) Fail("expected a map key after \".\"");
      n.path.push_back(Next().text);
    }
    return n;
  }

  std::vector<Token> tokens_;
  std::size_t at_ = 0;
  int depth_ = 0;  // levels of nesting open (Level)
};

const char* OpText(ExprNode::Op op) {
  switch (op) {
    case ExprNode::Op::kNone:
      return "";
    case ExprNode::Op::kEq:
      return "=";
    case ExprNode::Op::kNe:
      return "!=";
    case ExprNode::Op::kLt:
      return "<";
    case ExprNode::Op::kLe:
      return "<=";
    case ExprNode::Op::kGt:
      return ">";
    case ExprNode::Op::kGe:
      return ">=";
    case ExprNode::Op::kAdd:
      return "+";
    case ExprNode::Op::kSub:
      return "-";
    case ExprNode::Op::kMul:
      return "*";
    case ExprNode::Op::kDiv:
      return "/";
    case ExprNode::Op::kMod:
      return "%";
  }
  return "";
}

std::string Nested(const ExprNode& n) {
  const bool leaf = n.kind == ExprNode::Kind::kLiteral || n.kind == ExprNode::Kind::kField;
  if (leaf) return ExprToString(n);
  std::string out = "(";  // appended, not `"(" + ...`: GCC 12 -O3 warns falsely (-Wrestrict)
  out += ExprToString(n);
  out += ')';
  return out;
}

}  // namespace

ExprNode ParseExpression(std::string_view text) { return Parser(text).Parse(); }

std::vector<ExprNode> SplitConjuncts(const ExprNode& node) {
  if (node.kind == ExprNode::Kind::kAnd) return node.children;
  return {node};
}

std::string ExprToString(const ExprNode& n) {
  switch (n.kind) {
    case ExprNode::Kind::kLiteral:
      if (n.literal.IsString()) {
        std::string out = "'";
        for (const char c : n.literal.AsString())
          out += c == '\'' ? std::string("''") : std::string(1, c);
        return out + "'";
      }
      return n.literal.IsNull() ? "null" : n.literal.ToString();
    case ExprNode::Kind::kField: {
      std::string out = n.qualifier.empty() ? "" : n.qualifier + ":";
      for (std::size_t i = 0; i < n.path.size(); ++i) out += (i ? "." : "") + n.path[i];
      return out;
    }
    case ExprNode::Kind::kNot:
      return "NOT " + Nested(n.children[0]);
    case ExprNode::Kind::kAnd:
    case ExprNode::Kind::kOr: {
      std::string out;
      for (const ExprNode& c : n.children) {
        if (!out.empty()) out += n.kind == ExprNode::Kind::kAnd ? " AND " : " OR ";
        out += Nested(c);
      }
      return out;
    }
    case ExprNode::Kind::kCompare:
    case ExprNode::Kind::kArithmetic:
      return Nested(n.children[0]) + " " + OpText(n.op) + " " + Nested(n.children[1]);
    case ExprNode::Kind::kIsNull:
      return Nested(n.children[0]) + " IS NULL";
    case ExprNode::Kind::kIsNotNull:
      return Nested(n.children[0]) + " IS NOT NULL";
    case ExprNode::Kind::kNegate:
      return "-" + Nested(n.children[0]);
  }
  return "";
}

}  // namespace tempest::bolts

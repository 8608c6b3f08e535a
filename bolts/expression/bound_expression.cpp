#include "bolts/expression/bound_expression.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "bolts/join/field_selector.h"

namespace tempest::bolts {

using topology::Tuple;
using topology::Value;
using topology::ValueType;

struct BoundExpression::Node {
  ExprNode::Kind kind = ExprNode::Kind::kLiteral;
  ExprNode::Op op = ExprNode::Op::kNone;
  Value literal;
  int input = -1;  // kField
  std::vector<std::string> path;
  // kField: the field's index per schema seen, so a read is a pointer compare and an index.
  mutable std::vector<std::pair<const topology::StreamSchema*, int>> index;
  std::vector<Node> children;
};

namespace {

using Node = BoundExpression::Node;

std::string Names(const std::vector<ExprInput>& inputs) {
  std::string out;
  for (const ExprInput& in : inputs) out += (out.empty() ? "" : ", ") + in.name;
  return out;
}

bool Declares(const ExprInput& in, const std::string& field) {
  for (const topology::Fields& f : in.fields) {
    if (f.Contains(field)) return true;
  }
  return false;
}

std::string Declared(const ExprInput& in) {
  std::string out;
  for (const topology::Fields& f : in.fields) {
    for (const std::string& n : f.names()) out += (out.empty() ? "" : ", ") + n;
  }
  return out;
}

}  // namespace

namespace {

void BindInto(const ExprNode& n, const std::vector<ExprInput>& inputs, Node& out, uint64_t& used) {
  out.kind = n.kind;
  out.op = n.op;
  out.literal = n.literal;
  if (n.kind == ExprNode::Kind::kField) {
    out.path = n.path;
    const std::string& field = n.path[0];
    if (!n.qualifier.empty()) {
      for (std::size_t i = 0; i < inputs.size() && out.input < 0; ++i) {
        if (EqualsIgnoreCase(n.qualifier, inputs[i].name) ||
            (!inputs[i].alias.empty() && EqualsIgnoreCase(n.qualifier, inputs[i].alias))) {
          out.input = static_cast<int>(i);
        }
      }
      if (out.input < 0) {
        throw ExpressionError(n.position,
                              fmt::format("at character {}: \"{}\" names no input (inputs: {})",
                                          n.position, n.qualifier, Names(inputs)));
      }
      const ExprInput& in = inputs[static_cast<std::size_t>(out.input)];
      if (!Declares(in, field)) {
        throw ExpressionError(n.position,
                              fmt::format("at character {}: field \"{}\" is not declared by \"{}\" "
                                          "(declared: {})",
                                          n.position, field, in.name, Declared(in)));
      }
    } else {
      for (std::size_t i = 0; i < inputs.size() && out.input < 0; ++i) {
        if (Declares(inputs[i], field)) out.input = static_cast<int>(i);
      }
      if (out.input < 0) {
        std::string all;
        for (const ExprInput& in : inputs) {
          all += fmt::format("{}{}: {}", all.empty() ? "" : "; ", in.name, Declared(in));
        }
        throw ExpressionError(n.position,
                              fmt::format("at character {}: field \"{}\" is not declared by any "
                                          "input ({})",
                                          n.position, field, all));
      }
    }
    used |= uint64_t{1} << out.input;
  }
  out.children.resize(n.children.size());
  for (std::size_t i = 0; i < n.children.size(); ++i) {
    BindInto(n.children[i], inputs, out.children[i], used);
  }
}

const Value kNullValue;

// Numeric comparison of ints and doubles; -2: not comparable.
int CompareValues(const Value& a, const Value& b) {
  const ValueType ta = a.type(), tb = b.type();
  auto sign = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (ta == ValueType::kInt && tb == ValueType::kInt) return sign(a.AsInt(), b.AsInt());
  const bool na = ta == ValueType::kInt || ta == ValueType::kDouble;
  const bool nb = tb == ValueType::kInt || tb == ValueType::kDouble;
  if (na && nb) {
    const double x = ta == ValueType::kInt ? static_cast<double>(a.AsInt()) : a.AsDouble();
    const double y = tb == ValueType::kInt ? static_cast<double>(b.AsInt()) : b.AsDouble();
    if (std::isnan(x) || std::isnan(y)) return -2;
    return sign(x, y);
  }
  if (ta != tb) return -2;
  switch (ta) {
    case ValueType::kString:
      return sign(a.AsString().compare(b.AsString()), 0);
    case ValueType::kBool:
      return sign(a.AsBool(), b.AsBool());
    case ValueType::kNull:
    case ValueType::kInt:
    case ValueType::kDouble:
    case ValueType::kBytes:
    case ValueType::kList:
    case ValueType::kMap:
      return a == b ? 0 : 2;  // equal or not; ordering means nothing
  }
  return -2;
}

bool IsNumber(const Value& v) {
  return v.type() == ValueType::kInt || v.type() == ValueType::kDouble;
}

double AsNumber(const Value& v) {
  return v.type() == ValueType::kInt ? static_cast<double>(v.AsInt()) : v.AsDouble();
}

// `a op b` for two numbers: integers stay integers (checked: overflow has no result), else
// doubles; division and remainder by zero, and INT64_MIN / -1, have none either. False: null.
bool Arithmetic(ExprNode::Op op, const Value& a, const Value& b, Value& out) {
  const bool ints = a.type() == ValueType::kInt && b.type() == ValueType::kInt;
  const int64_t x = ints ? a.AsInt() : 0, y = ints ? b.AsInt() : 0;
  const double dx = AsNumber(a), dy = AsNumber(b);
  int64_t i = 0;
  switch (op) {
    case ExprNode::Op::kAdd:
      if (!ints) {
        out = Value(dx + dy);
        return true;
      }
      if (__builtin_add_overflow(x, y, &i)) return false;
      break;
    case ExprNode::Op::kSub:
      if (!ints) {
        out = Value(dx - dy);
        return true;
      }
      if (__builtin_sub_overflow(x, y, &i)) return false;
      break;
    case ExprNode::Op::kMul:
      if (!ints) {
        out = Value(dx * dy);
        return true;
      }
      if (__builtin_mul_overflow(x, y, &i)) return false;
      break;
    case ExprNode::Op::kDiv:
    case ExprNode::Op::kMod: {
      const bool div = op == ExprNode::Op::kDiv;
      if (!ints) {
        if (dy == 0) return false;
        out = Value(div ? dx / dy : std::fmod(dx, dy));
        return true;
      }
      if (y == 0 || (x == INT64_MIN && y == -1)) return false;
      i = div ? x / y : x % y;
      break;
    }
    case ExprNode::Op::kNone:
    case ExprNode::Op::kEq:
    case ExprNode::Op::kNe:
    case ExprNode::Op::kLt:
    case ExprNode::Op::kLe:
    case ExprNode::Op::kGt:
    case ExprNode::Op::kGe:
      return false;
  }
  out = Value(i);
  return true;
}

// The field index of `n` in rows of `schema`: a pointer compare per schema seen.
int FieldIndex(const Node& n, const topology::StreamSchema* schema,
               const topology::Fields& fields) {
  for (const auto& [seen, i] : n.index) {
    if (seen == schema) return i;
  }
  int index = -1;
  const auto& names = fields.names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == n.path[0]) index = static_cast<int>(i);
  }
  n.index.emplace_back(schema, index);
  return index;
}

// The inputs of an evaluation: tuples (nullptr: every field null).
struct TupleInputs {
  std::span<const Tuple* const> tuples;

  const Value* Field(const Node& n, Value&) const {
    const Tuple* t = tuples[static_cast<std::size_t>(n.input)];
    if (t == nullptr) return nullptr;
    return LookupPath(*t, FieldIndex(n, t->schema(), t->GetFields()), n.path);
  }
};

// One batch row as the only input: a plain field is read into its slot of `fields` (kept by the
// expression, so a long string reuses its buffer from row to row), a map where the batch keeps
// it.
struct RowInput {
  const topology::RowRef& row;
  topology::Values& fields;

  const Value* Field(const Node& n, Value&) const {
    const topology::StreamSchema* schema = row.schema();
    const int index = schema != nullptr ? FieldIndex(n, schema, *schema->fields) : -1;
    if (index < 0) return nullptr;
    if (fields.size() <= static_cast<std::size_t>(index)) fields.resize(index + 1);
    return LookupPath(row, index, n.path, fields[static_cast<std::size_t>(index)]);
  }
};

// Evaluates `n`; the result is `scratch` or a value the inputs or the tree own.
template <class Inputs>
const Value* Eval(const Node& n, const Inputs& in, Value& scratch) {
  switch (n.kind) {
    case ExprNode::Kind::kLiteral:
      return &n.literal;
    case ExprNode::Kind::kField: {
      const Value* v = in.Field(n, scratch);
      return v != nullptr ? v : &kNullValue;
    }
    case ExprNode::Kind::kNot: {
      const Value* v = Eval(n.children[0], in, scratch);
      if (v->type() != ValueType::kBool) return &kNullValue;
      scratch = Value(!v->AsBool());
      return &scratch;
    }
    case ExprNode::Kind::kAnd:
    case ExprNode::Kind::kOr: {
      // Kleene: AND is false if any operand is false, OR true if any is true; else null if
      // any is null (or not a boolean).
      const bool is_and = n.kind == ExprNode::Kind::kAnd;
      bool unknown = false;
      for (const Node& c : n.children) {
        Value local;
        const Value* v = Eval(c, in, local);
        if (v->type() != ValueType::kBool) {
          unknown = true;
        } else if (v->AsBool() != is_and) {
          scratch = Value(!is_and);
          return &scratch;
        }
      }
      if (unknown) return &kNullValue;
      scratch = Value(is_and);
      return &scratch;
    }
    case ExprNode::Kind::kIsNull:
    case ExprNode::Kind::kIsNotNull: {
      Value local;
      const bool null = Eval(n.children[0], in, local)->IsNull();
      scratch = Value(n.kind == ExprNode::Kind::kIsNull ? null : !null);
      return &scratch;
    }
    case ExprNode::Kind::kCompare: {
      Value l, r;
      const Value* a = Eval(n.children[0], in, l);
      const Value* b = Eval(n.children[1], in, r);
      if (a->IsNull() || b->IsNull()) return &kNullValue;
      const int c = CompareValues(*a, *b);
      if (c == -2) return &kNullValue;
      bool out = false;
      switch (n.op) {
        case ExprNode::Op::kEq:
          out = c == 0;
          break;
        case ExprNode::Op::kNe:
          out = c != 0;
          break;
        case ExprNode::Op::kLt:
          out = c == -1;
          break;
        case ExprNode::Op::kLe:
          out = c == -1 || c == 0;
          break;
        case ExprNode::Op::kGt:
          out = c == 1;
          break;
        case ExprNode::Op::kGe:
          out = c == 1 || c == 0;
          break;
        case ExprNode::Op::kNone:
        case ExprNode::Op::kAdd:
        case ExprNode::Op::kSub:
        case ExprNode::Op::kMul:
        case ExprNode::Op::kDiv:
        case ExprNode::Op::kMod:
          return &kNullValue;
      }
      if (c == 2 && n.op != ExprNode::Op::kEq && n.op != ExprNode::Op::kNe) return &kNullValue;
      scratch = Value(out);
      return &scratch;
    }
    case ExprNode::Kind::kArithmetic: {
      Value l, r;
      const Value* a = Eval(n.children[0], in, l);
      const Value* b = Eval(n.children[1], in, r);
      if (!IsNumber(*a) || !IsNumber(*b) || !Arithmetic(n.op, *a, *b, scratch)) {
        return &kNullValue;
      }
      return &scratch;
    }
    case ExprNode::Kind::kNegate: {
      Value local;
      const Value* v = Eval(n.children[0], in, local);
      if (v->type() == ValueType::kInt) {
        if (v->AsInt() == INT64_MIN) return &kNullValue;
        scratch = Value(-v->AsInt());
      } else if (v->type() == ValueType::kDouble) {
        scratch = Value(-v->AsDouble());
      } else {
        return &kNullValue;
      }
      return &scratch;
    }
  }
  return &kNullValue;
}

}  // namespace

BoundExpression::BoundExpression(const ExprNode& node, const std::vector<ExprInput>& inputs)
    : root_(std::make_unique<Node>()) {
  if (inputs.size() > 64) throw ExpressionError(0, "a condition reads at most 64 inputs");
  BindInto(node, inputs, *root_, inputs_);
}

BoundExpression::BoundExpression(const BoundExpression& o)
    : root_(std::make_unique<Node>(*o.root_)), inputs_(o.inputs_) {}
BoundExpression& BoundExpression::operator=(const BoundExpression& o) {
  if (this != &o) {
    root_ = std::make_unique<Node>(*o.root_);
    inputs_ = o.inputs_;
  }
  return *this;
}
BoundExpression::BoundExpression(BoundExpression&&) noexcept = default;
BoundExpression& BoundExpression::operator=(BoundExpression&&) noexcept = default;
BoundExpression::~BoundExpression() = default;

Value BoundExpression::Evaluate(std::span<const Tuple* const> tuples) const {
  Value scratch;
  return *Eval(*root_, TupleInputs{tuples}, scratch);
}

bool BoundExpression::Holds(std::span<const Tuple* const> tuples) const {
  Value scratch;
  const Value* v = Eval(*root_, TupleInputs{tuples}, scratch);
  return v->type() == ValueType::kBool && v->AsBool();
}

bool BoundExpression::Holds(const topology::RowRef& row) const {
  Value scratch;
  const Value* v = Eval(*root_, RowInput{row, row_fields_}, scratch);
  return v->type() == ValueType::kBool && v->AsBool();
}

}  // namespace tempest::bolts

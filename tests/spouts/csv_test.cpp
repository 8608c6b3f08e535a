// The RFC 4180 record parser and the cell typing of FileSpout's CSV format.
#include "spouts/csv.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace tempest::spouts {
namespace {

using topology::Value;
using topology::ValueType;
using Cells = std::vector<std::string>;

Cells Parse(std::string_view record) {
  Cells cells{"stale"};
  const CsvParseResult r = ParseCsvRecord(record, cells);
  EXPECT_EQ(r.status, CsvStatus::kOk) << record;
  return cells;
}

TEST(CsvParseTest, PlainCells) {
  EXPECT_EQ(Parse("a,b,c"), (Cells{"a", "b", "c"}));
  EXPECT_EQ(Parse("one"), (Cells{"one"}));
  EXPECT_EQ(Parse(""), (Cells{""}));
  EXPECT_EQ(Parse(",,"), (Cells{"", "", ""}));
  EXPECT_EQ(Parse("a,,c,"), (Cells{"a", "", "c", ""}));
  EXPECT_EQ(Parse(" a , b "), (Cells{" a ", " b "}));  // spaces belong to the cell
}

TEST(CsvParseTest, QuotedCells) {
  EXPECT_EQ(Parse(R"("x,y","he said ""hi""",z)"), (Cells{"x,y", "he said \"hi\"", "z"}));
  EXPECT_EQ(Parse(R"("")"), (Cells{""}));
  EXPECT_EQ(Parse(R"("","")"), (Cells{"", ""}));
  EXPECT_EQ(Parse(R"(a,"")"), (Cells{"a", ""}));
  EXPECT_EQ(Parse(R"("""")"), (Cells{"\""}));
  EXPECT_EQ(Parse("\"two\nlines\",b"), (Cells{"two\nlines", "b"}));
  EXPECT_EQ(Parse(R"("a,""b"",c")"), (Cells{"a,\"b\",c"}));
}

TEST(CsvParseTest, AQuoteInsideAnUnquotedCellIsLiteral) {
  EXPECT_EQ(Parse(R"(a"b,c)"), (Cells{"a\"b", "c"}));
  EXPECT_EQ(Parse(R"(5" screen,x)"), (Cells{"5\" screen", "x"}));
}

TEST(CsvParseTest, AnOpenQuoteAtTheEndNeedsTheNextLine) {
  Cells cells;
  EXPECT_EQ(ParseCsvRecord(R"("abc)", cells).status, CsvStatus::kUnterminated);
  EXPECT_EQ(ParseCsvRecord(R"(a,"b)", cells).status, CsvStatus::kUnterminated);
  EXPECT_EQ(ParseCsvRecord(R"("a"")", cells).status, CsvStatus::kUnterminated);  // "" is a quote
  EXPECT_EQ(ParseCsvRecord(R"(a,")", cells).status, CsvStatus::kUnterminated);
}

TEST(CsvParseTest, TextAfterAClosingQuoteIsAnError) {
  Cells cells;
  CsvParseResult r = ParseCsvRecord(R"("abc"x,y)", cells);
  EXPECT_EQ(r.status, CsvStatus::kTextAfterQuote);
  EXPECT_EQ(r.position, 6u);
  r = ParseCsvRecord(R"(a,"b" ,c)", cells);
  EXPECT_EQ(r.status, CsvStatus::kTextAfterQuote);
  EXPECT_EQ(r.position, 6u);
}

TEST(CsvTypeTest, EmptyIsNull) { EXPECT_EQ(TypeCsvCell(""), Value()); }

TEST(CsvTypeTest, Integers) {
  const auto is_int = [](std::string_view cell, int64_t expected) {
    const Value v = TypeCsvCell(cell);
    EXPECT_EQ(v.type(), ValueType::kInt) << cell;
    EXPECT_EQ(v, Value(expected)) << cell;
  };
  is_int("42", 42);
  is_int("-7", -7);
  is_int("+5", 5);
  is_int("0", 0);
  is_int("-0", 0);
  is_int("007", 7);
  is_int("9223372036854775807", std::numeric_limits<int64_t>::max());
  is_int("-9223372036854775808", std::numeric_limits<int64_t>::min());
}

TEST(CsvTypeTest, Doubles) {
  const auto is_double = [](std::string_view cell, double expected) {
    const Value v = TypeCsvCell(cell);
    EXPECT_EQ(v.type(), ValueType::kDouble) << cell;
    EXPECT_EQ(v, Value(expected)) << cell;
  };
  is_double("1.5", 1.5);
  is_double("-0.25", -0.25);
  is_double("+2.5", 2.5);
  is_double("1e3", 1000.0);
  is_double("2.5E-3", 0.0025);
  is_double("1e+2", 100.0);
  is_double(".5", 0.5);
  is_double("5.", 5.0);
  is_double("3.0", 3.0);
  // Integers beyond int64 are read as doubles.
  is_double("9223372036854775808", 9223372036854775808.0);
  is_double("-99999999999999999999", -1e20);
}

TEST(CsvTypeTest, EverythingElseIsAString) {
  for (std::string_view cell :
       {"abc", "nan", "NaN", "inf",   "-inf", "Infinity", "12abc", "1,5",
        "-",   "+",   ".",   "1e",    "e5",   "0x1A",     " 42",   "42 ",
        "++1", "+-1", "1-2", "1.2.3", "--1",  "1e400",    "true",  "null"}) {
    EXPECT_EQ(TypeCsvCell(cell), Value(cell)) << cell;
  }
}

}  // namespace
}  // namespace tempest::spouts

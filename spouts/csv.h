#pragma once

// A small RFC 4180 CSV record parser and the cell typing FileSpout applies (docs/contracts.md,
// "Values and files"). Stateless functions, safe from any thread.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "topology/value.h"

namespace tempest::spouts {

// What ParseCsvRecord found.
enum class CsvStatus {
  kOk,              // a complete record; `cells` holds its cells
  kUnterminated,    // a quoted cell is still open at the end: the record continues on the next
                    // line (join them with '\n' and parse again)
  kTextAfterQuote,  // a closing quote is followed by something other than ',' or the end
};

struct CsvParseResult {
  CsvStatus status = CsvStatus::kOk;
  // kTextAfterQuote: 1-based position in `record` of the offending character.
  std::size_t position = 0;
};

// Splits one record into cells (RFC 4180): cells are separated by ','; a cell enclosed in double
// quotes may hold ',', '"' written as '""', and line breaks; the quotes are removed. A '"' inside
// an unquoted cell is kept as a literal character (lenient, as most readers are). `record` has no
// trailing line terminator; "" is one empty cell. `cells` is overwritten (its capacity reused).
CsvParseResult ParseCsvRecord(std::string_view record, std::vector<std::string>& cells);

// The typed value of one cell: int64 if the whole cell is an integer ([+-]digits, in range), else
// a double if the whole cell is a decimal number ([+-], digits, '.', exponent — never "nan" or
// "inf"), else the string itself; an empty cell is null. Quoting does not change the type.
topology::Value TypeCsvCell(std::string_view cell);

}  // namespace tempest::spouts

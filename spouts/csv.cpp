#include "spouts/csv.h"

#include <charconv>
#include <cstdint>
#include <system_error>

namespace tempest::spouts {

CsvParseResult ParseCsvRecord(std::string_view record, std::vector<std::string>& cells) {
  cells.clear();
  cells.emplace_back();
  std::size_t i = 0;
  const std::size_t n = record.size();
  while (true) {
    std::string& cell = cells.back();
    if (i < n && record[i] == '"') {
      // A quoted cell: runs to the quote that is not doubled.
      ++i;
      for (;;) {
        if (i >= n) return {CsvStatus::kUnterminated, 0};
        const std::size_t quote = record.find('"', i);
        if (quote == std::string_view::npos) return {CsvStatus::kUnterminated, 0};
        cell.append(record.substr(i, quote - i));
        if (quote + 1 < n && record[quote + 1] == '"') {
          cell.push_back('"');
          i = quote + 2;
          continue;
        }
        i = quote + 1;
        break;
      }
      if (i < n && record[i] != ',') return {CsvStatus::kTextAfterQuote, i + 1};
    } else {
      const std::size_t comma = record.find(',', i);
      const std::size_t end = comma == std::string_view::npos ? n : comma;
      cell.append(record.substr(i, end - i));
      i = end;
    }
    if (i >= n) return {CsvStatus::kOk, 0};
    ++i;  // the ','
    cells.emplace_back();
  }
}

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

topology::Value TypeCsvCell(std::string_view cell) {
  if (cell.empty()) return topology::Value();
  std::string_view number = cell;
  if (number.front() == '+') number.remove_prefix(1);
  if (number.empty()) return topology::Value(cell);
  bool digits_only = true;
  bool any_digit = false;
  bool numeric_chars = true;
  for (std::size_t k = 0; k < number.size(); ++k) {
    const char c = number[k];
    if (IsDigit(c)) {
      any_digit = true;
      continue;
    }
    if (c == '-' && k == 0) continue;
    digits_only = false;
    if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+') numeric_chars = false;
  }
  if (!any_digit || !numeric_chars) return topology::Value(cell);
  // A '+' after a stripped '+' ("++1") is not a number.
  if (number.front() == '+' || (cell.front() == '+' && number.front() == '-')) {
    return topology::Value(cell);
  }
  const char* first = number.data();
  const char* last = number.data() + number.size();
  if (digits_only) {
    int64_t i = 0;
    const auto [end, ec] = std::from_chars(first, last, i);
    if (ec == std::errc() && end == last) return topology::Value(i);
    // Out of int64's range: read on as a double.
  }
  double d = 0;
  const auto [end, ec] = std::from_chars(first, last, d, std::chars_format::general);
  if (ec == std::errc() && end == last) return topology::Value(d);
  return topology::Value(cell);
}

}  // namespace tempest::spouts

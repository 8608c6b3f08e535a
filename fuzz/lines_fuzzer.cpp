// libFuzzer target: the FileSpout's line readers on any line: JSON (one document per line) and
// CSV (one record, its cells typed). Bad lines are errors the spout reports, never crashes.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "spouts/csv.h"
#include "topology/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  try {
    (void)tempest::topology::ParseJson(line);
  } catch (const std::invalid_argument&) {
  }
  std::vector<std::string> cells;
  if (tempest::spouts::ParseCsvRecord(line, cells).status == tempest::spouts::CsvStatus::kOk) {
    for (const std::string& cell : cells) (void)tempest::spouts::TypeCsvCell(cell);
  }
  return 0;
}

#pragma once

// JSON text <-> Value, for the file spout and sinks (docs/contracts.md, "Values and files"). The
// parser is nlohmann/json's, kept out of this header. Stateless functions, safe from any thread.

#include <cstddef>
#include <string>
#include <string_view>

#include "topology/fields.h"
#include "topology/row_batch.h"
#include "topology/value.h"

namespace tempest::topology {

// Deepest nesting of arrays/objects ParseJson accepts (deeper documents are rejected, so neither
// parsing nor destroying a Value can exhaust the stack).
inline constexpr std::size_t kMaxJsonDepth = 512;

// Parses one complete JSON document (surrounding whitespace allowed, nothing else). Mapping: an
// integer is an int64 (an unsigned one beyond int64's range becomes a double), a number with a
// fraction or exponent a double, string/bool/null as such, an array a List, an object a Map with
// string keys in document order (a repeated key keeps its first position and its last value).
// Throws std::invalid_argument "invalid JSON: parse error at line L, column C: ..." (nlohmann's
// description of what was wrong where) or naming the nesting limit.
Value ParseJson(std::string_view text);

// Appends v as compact JSON (no spaces): null, true/false, integers, floats, strings, arrays,
// objects. A double is written in its shortest round-trip form and always reads back as a
// float (2.0 → "2.0", 1e20 → "1e+20"); NaN and ±infinity, which JSON lacks, become null. Bytes
// become a base64 string (RFC 4648, padded). A map key that is not a string is written as a
// string holding the key's JSON text (key 1 → "1"). Strings are escaped as JSON requires;
// invalid UTF-8 sequences are replaced by U+FFFD so the output is always valid JSON.
void AppendJson(std::string& out, const Value& v);

// AppendJson into a fresh string.
std::string ToJson(const Value& v);

// Appends the JSON object {"field": value, ...}, keys in the order of `fields`. Throws
// std::invalid_argument when the two sizes differ.
void AppendJsonObject(std::string& out, const Fields& fields, const Values& values);
// The same for a batch row's cells, read in place.
void AppendJsonObject(std::string& out, const Fields& fields, const RowRef& row);

}  // namespace tempest::topology

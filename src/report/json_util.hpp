// Pieces shared by the JSON renderings of counts, plans and estimates: one schema for all
// three (docs/usage.md, "JSON"; docs/matchcount.schema.json).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "matchcount/report.hpp"

namespace matchcount::report_detail {

/// Insertion order is kept, so the output reads in the order the documentation lists it.
using Json = nlohmann::ordered_json;

/// The layout's version, the "schema" field: raised whenever a field changes meaning or type
/// or disappears (new fields may be added under the same version).
constexpr int kJsonSchema = 1;

/// The fields that open every object: schema, mode, file, format, number_kind, rows, cols, nnz.
Json json_head(const char* mode, const ReadResult& in, const RunInfo& info, int rows, int cols, std::size_t nnz);

/// A double as a JSON number; a non-finite one as the string "inf", "-inf" or "nan" (JSON
/// has no such numbers, and null would read as "no value").
Json json_real(double x);

/// A count's value: integers and fractions as decimal strings, floats as numbers, complex
/// values as [re, im].
Json value_json(const PermanentValue& v);

/// The input's notes followed by the count's.
Json json_notes(const std::vector<std::string>& input_notes, const std::vector<std::string>& notes);

/// One line of JSON. Bytes that are not UTF-8 (a file name is any bytes on POSIX) become
/// U+FFFD, so the output always parses.
std::string json_text(const Json& j);

}  // namespace matchcount::report_detail

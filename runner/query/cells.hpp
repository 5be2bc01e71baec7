#pragma once
/// How values read from the database look in a printed cell.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runner/query/table.hpp"

namespace bb::query {

/// "transpose/padded" -> "padded"; an id without a family is returned as it is.
std::string short_variant(std::string_view variant);

/// {"tile":32,"n":1024,"layout":"row"} -> "layout=row n=1024 tile=32": keys sorted, strings
/// unquoted, other values as compact JSON. Text that is not a JSON object is returned as it is.
std::string compact_params(const std::string& params_json);

/// `value` with `decimals` digits after the point for text and markdown; for csv every digit
/// (shortest text that reads back the same). A missing value is "-", or empty in csv.
std::string number_cell(std::optional<double> value, int decimals, output_format format);

/// Shortest text that reads back as `value`: 31 -> "31", 0.5 -> "0.5".
std::string shortest(double value);

/// A number with `decimals` digits for reading and every digit for programs; "-" and null when
/// missing or not finite.
cell number(std::optional<double> value, int decimals);

/// A count: the integer, "-" and null when missing.
cell count(std::optional<std::int64_t> value);

/// A configuration's parameters: compact text ("n=1024 tile=32", "-" when none) and the JSON
/// object itself (the text as it is when it is not JSON).
cell params(const std::string& params_json);

/// A variant: "padded" to read, "transpose/padded" to keep; a name over 64 characters reads as
/// its first 60 and "...".
cell variant(const std::string& id);

} // namespace bb::query

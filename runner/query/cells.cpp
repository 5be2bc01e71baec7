#include "runner/query/cells.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace bb::query {

std::string short_variant(std::string_view variant) {
  const auto slash = variant.rfind('/');
  return std::string(slash == std::string_view::npos ? variant : variant.substr(slash + 1));
}

std::string compact_params(const std::string& params_json) {
  const auto params = nlohmann::json::parse(params_json, nullptr, false);
  if (!params.is_object()) return params_json;
  std::string out;
  // nlohmann::json keeps object keys sorted.
  for (const auto& [key, value] : params.items()) {
    if (!out.empty()) out += ' ';
    out += key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

std::string shortest(double value) { return fmt::format("{}", value); }

std::string number_cell(std::optional<double> value, int decimals, output_format format) {
  if (!value) return format == output_format::csv ? "" : "-";
  if (format == output_format::csv) return shortest(*value);
  return fmt::format("{:.{}f}", *value, decimals);
}

cell number(std::optional<double> value, int decimals) {
  if (!value || !std::isfinite(*value)) return {"-", nullptr};
  return {fmt::format("{:.{}f}", *value, decimals), *value};
}

cell count(std::optional<std::int64_t> value) {
  if (!value) return {"-", nullptr};
  return {std::to_string(*value), *value};
}

cell params(const std::string& params_json) {
  const std::string text = compact_params(params_json);
  auto object = nlohmann::json::parse(params_json, nullptr, false);
  return {text.empty() ? "-" : text, object.is_discarded() ? nlohmann::json(params_json) : std::move(object)};
}

cell variant(const std::string& id) {
  // A program's kernel (`attach`) can be named by hundreds of characters of template arguments
  // (at::native::reduce_kernel<512, 1, at::native::ReduceOp<...>>): tables show the first 60 and
  // "...", csv and json the whole name.
  std::string shown = short_variant(id);
  constexpr std::size_t k_widest = 64, k_kept = 60;
  if (shown.size() > k_widest) {
    std::size_t cut = k_kept;
    while (cut > 0 && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80) --cut; // not inside a UTF-8 sequence
    shown = shown.substr(0, cut) + "...";
  }
  return {shown, id};
}

} // namespace bb::query

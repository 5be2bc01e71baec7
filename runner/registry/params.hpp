#pragma once
/// NAME=VALUE parameters given on the command line (bankmap --params), over a family's defaults.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/registry/registry.hpp"

namespace bb {

/// The family's defaults with `given` ("n=1024", "type=float") applied; values are JSON where
/// they parse, else text, and must be of the default's kind. Throws usage_error naming the
/// entry, the parameter and what it takes.
nlohmann::json params_over_defaults(const family_info& family, const std::vector<std::string>& given);

} // namespace bb

#pragma once
#include <string>
#include <string_view>

namespace bb {

/// Lower-case hex SHA-256 of `data` (FIPS 180-4); identifies an experiment file's exact text.
std::string sha256_hex(std::string_view data);

} // namespace bb

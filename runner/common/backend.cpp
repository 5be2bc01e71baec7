#include "runner/common/backend.hpp"

namespace bb {

const char* name_of(backend b) { return b == backend::model ? "model" : "cupti"; }

std::optional<backend> backend_named(std::string_view name) {
  if (name == "cupti") return backend::cupti;
  if (name == "model") return backend::model;
  return std::nullopt;
}

} // namespace bb

#pragma once
/// What produces a run's counters: the GPU through CUPTI, or the bank model's prediction. The
/// name is stored in gpus.backend and spelled so on the command line (`run --backend`).
#include <optional>
#include <string_view>

namespace bb {

enum class backend {
  cupti, ///< measured on the GPU
  model, ///< predicted from access plans, no GPU
};

/// "cupti" or "model".
const char* name_of(backend b);

/// The backend named `name`; nullopt for any other text.
std::optional<backend> backend_named(std::string_view name);

/// Whether `stored` (gpus.backend as read back, which may name a backend this build does not
/// know) names `b`.
inline bool names_backend(std::string_view stored, backend b) { return stored == name_of(b); }

} // namespace bb

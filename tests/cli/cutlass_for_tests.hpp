#pragma once
// CUTLASS's headers for the tests that compile CuTe kernels: $CUTLASS_DIR, else CUTLASS 4.7.0
// at ../shared/third_party/cutlass-4.7.0 beside the checkout. Tests skip, with this reason, where
// neither holds include/cute/tensor.hpp.
#include <cstdlib>
#include <filesystem>
#include <string>

namespace bb::test {

/// The CUTLASS folder (the one holding include/), or "" when none is found.
inline std::string cutlass_for_tests() {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const char* env = std::getenv("CUTLASS_DIR"); env != nullptr && *env != 0;) {
    if (fs::is_regular_file(fs::path(env) / "include" / "cute" / "tensor.hpp", ec)) return env;
    break;
  }
  const fs::path beside = fs::path(BB_SOURCE_DIR) / ".." / "shared" / "third_party" / "cutlass-4.7.0";
  if (fs::is_regular_file(beside / "include" / "cute" / "tensor.hpp", ec)) return beside.lexically_normal().string();
  return {};
}

inline const char* k_no_cutlass = "CUTLASS not found: set CUTLASS_DIR, or put CUTLASS 4.7.0 at "
                                  "../shared/third_party/cutlass-4.7.0 beside the checkout";

} // namespace bb::test

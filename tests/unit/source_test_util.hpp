#pragma once
// Helpers shared by the source module's compile tests: the kernels they compile and the error text
// a compile throws.
#include <string>

#include "runner/source/compile.hpp"

namespace bb::test {

/// tests/data/source: kernels as users write them (the tests match error messages naming their lines).
inline const std::string k_source_data = std::string(BB_TEST_DATA) + "/source";

/// The message of the compile_error that compiling `rq` throws, or "no error".
inline std::string compile_error_of(const source::compile_request& rq, const std::string& cache = "") {
  try {
    (void)source::compile(rq, cache);
  } catch (const source::compile_error& e) {
    return e.what();
  }
  return "no error";
}

} // namespace bb::test

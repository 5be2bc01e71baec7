#pragma once
// GPU tests skip (never pass) where no CUDA device is visible.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

namespace bb::test {

inline bool gpu_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

} // namespace bb::test

#define BB_REQUIRE_GPU()                                                        \
  do {                                                                          \
    if (!::bb::test::gpu_available()) GTEST_SKIP() << "no CUDA device visible"; \
  } while (false)

// include/bankbench/bank_conflicts.hpp compiled by nvcc: the functions are usable in static_assert
// in host and device code. Needs no GPU: main() checks constexpr values on the host.
#include <cstdio>

#include "bankbench/bank_conflicts.hpp"

namespace {

constexpr int k_cols = 32;

template <int Pad> __global__ void column_read(float* out) {
  static_assert(bankbench::column_conflict_free<float>(k_cols, Pad), "column reads of this tile conflict");
  __shared__ float tile[32][k_cols + Pad];
  tile[threadIdx.y][threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncthreads();
  // Usable at run time on the device too.
  constexpr int wf = bankbench::column_wavefronts<float>(k_cols, Pad);
  out[threadIdx.x] = tile[threadIdx.x][0] + static_cast<float>(wf);
}

template __global__ void column_read<1>(float*);
template __global__ void column_read<3>(float*);

static_assert(bankbench::column_conflict_degree<float>(32, 2) == 2, "float[32][34] is 2-way");
static_assert(bankbench::column_conflict_degree<double>(32, 1) == 1, "double[32][33] is conflict-free");

int check(const char* what, int got, int expected) {
  if (got == expected) return 0;
  std::fprintf(stderr, "%s: got %d, expected %d\n", what, got, expected);
  return 1;
}

} // namespace

int main() {
  int failures = 0;
  failures += check("float[32][32] degree", bankbench::column_conflict_degree<float>(32), 32);
  failures += check("float[32][34] degree", bankbench::column_conflict_degree<float>(32, 2), 2);
  failures += check("float[32][33] wavefronts", bankbench::column_wavefronts<float>(32, 1), 1);
  failures += check("double[32][33] wavefronts", bankbench::column_wavefronts<double>(32, 1), 2);
  failures += check("float4 stride-1 wavefronts", bankbench::strided_wavefronts(16, 16), 4);
  std::printf("%s\n", failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}

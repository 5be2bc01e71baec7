#pragma once
// The tma family's device code: tma_kernel and the box offsets it reads through, with no host-only
// headers, so its code twin (bench/code_twins/tma.yaml) compiles it alone (<cuda.h> for CUtensorMap).
#include <cstddef>
#include <cstdint>

#include <cuda.h>
#include <cuda_runtime.h>

#include "kernels/common/host_device.hpp"
#include "runner/model/matrix_access.hpp"

namespace bb::tma {

inline constexpr int k_rows = 32;

/// Byte offset of byte `byte` of row `row` of the box in shared memory under `mode`.
BB_HD constexpr std::uint32_t box_offset(int row, int byte, int row_bytes, model::tma_swizzle mode) {
  return model::tma_swizzled(static_cast<std::uint32_t>(row * row_bytes + byte), mode);
}

template <int RowBytes, model::tma_swizzle Mode> __global__ void __launch_bounds__(32)
    tma_kernel(const __grid_constant__ CUtensorMap map, float* __restrict__ out) {
  __shared__ __align__(1024) unsigned char tile[k_rows * RowBytes];
  __shared__ __align__(8) std::uint64_t barrier;
  const int lane = static_cast<int>(threadIdx.x);
  const auto bar = static_cast<std::uint32_t>(__cvta_generic_to_shared(&barrier));
  const auto dst = static_cast<std::uint32_t>(__cvta_generic_to_shared(tile));
  if (lane == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(k_rows * RowBytes)
                 : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::
            "r"(dst),
        "l"(&map), "r"(0), "r"(static_cast<int>(blockIdx.x) * k_rows), "r"(bar)
        : "memory");
  }
  __syncwarp();
  asm volatile(
      "{\n.reg .pred p;\nbb_wait_%=:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra bb_wait_%=;\n}\n" ::
          "r"(bar)
      : "memory");
  float4* o = reinterpret_cast<float4*>(out + static_cast<std::size_t>(blockIdx.x) * k_rows * (RowBytes / 4));
#pragma unroll
  for (int k = 0; k < RowBytes / 16; ++k)
    o[lane * (RowBytes / 16) + k] = *reinterpret_cast<const float4*>(tile + box_offset(lane, 16 * k, RowBytes, Mode));
}

} // namespace bb::tma

// A kernel as a user writes one for Hopper's TMA: each block loads a 32 x 32 float box of a
// row-major tensor with cp.async.bulk.tensor through a CUtensorMap (128B swizzle or none), waits on
// an mbarrier, reads the box back row by row (lane = row, 16 bytes at a time, undoing the swizzle)
// and writes it out in plain row-major order: the output is the input.
#include <cuda.h>

#include <cstdint>

template <int Swizzle> // 0: none, 1: 128B
__global__ void __launch_bounds__(32) tma_box(const __grid_constant__ CUtensorMap map, float* out) {
  __shared__ __align__(1024) float box[32 * 32];
  __shared__ __align__(8) std::uint64_t full;
  const unsigned lane = threadIdx.x;
  const auto bar = static_cast<unsigned>(__cvta_generic_to_shared(&full));
  if (lane == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(32 * 32 * 4) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            static_cast<unsigned>(__cvta_generic_to_shared(box))),
        "l"(&map), "r"(0), "r"(static_cast<int>(blockIdx.x) * 32), "r"(bar)
        : "memory");
  }
  __syncwarp();
  asm volatile("{\n.reg .pred done;\nwait_%=:\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
               "@!done bra wait_%=;\n}" ::"r"(bar)
               : "memory");
  const float4* rows = reinterpret_cast<const float4*>(box);
  float4* o = reinterpret_cast<float4*>(out) + blockIdx.x * 32 * 8;
  for (unsigned chunk = 0; chunk < 8; ++chunk) {
    const unsigned at = Swizzle ? chunk ^ (lane % 8) : chunk; // 16-byte chunk k of row r sits at k ^ (r % 8)
    o[lane * 8 + chunk] = rows[lane * 8 + at];
  }
}

template __global__ void tma_box<0>(const __grid_constant__ CUtensorMap, float*);
template __global__ void tma_box<1>(const __grid_constant__ CUtensorMap, float*);

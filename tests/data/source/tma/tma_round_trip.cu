// TMA both ways, as kernels written with CuTe or by hand do it: one lane elected with elect.sync
// loads a 32 x 32 float box through one CUtensorMap (128B swizzle), every lane adds 1 to its row,
// and the elected lane stores the box through a second map with a TMA store (bulk_group).
#include <cuda.h>

#include <cstdint>

__global__ void __launch_bounds__(32)
    round_trip(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap out) {
  __shared__ __align__(1024) float box[32 * 32];
  __shared__ __align__(8) std::uint64_t full;
  const unsigned lane = threadIdx.x;
  const auto bar = static_cast<unsigned>(__cvta_generic_to_shared(&full));
  const auto dst = static_cast<unsigned>(__cvta_generic_to_shared(box));
  unsigned elected = 0;
  asm volatile("{\n.reg .pred leader;\nelect.sync _|leader, 0xffffffff;\nselp.u32 %0, 1, 0, leader;\n}"
               : "=r"(elected));
  if (elected) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(32 * 32 * 4) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
            "r"(dst),
        "l"(&in), "r"(0), "r"(static_cast<int>(blockIdx.x) * 32), "r"(bar)
        : "memory");
  }
  __syncwarp();
  asm volatile("{\n.reg .pred done;\nwait_%=:\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
               "@!done bra wait_%=;\n}" ::"r"(bar)
               : "memory");
  for (unsigned j = 0; j < 32; ++j) box[lane * 32 + j] += 1.0f; // every element once, whatever the swizzle
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncwarp();
  if (elected) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&out), "r"(0),
                 "r"(static_cast<int>(blockIdx.x) * 32), "r"(dst)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

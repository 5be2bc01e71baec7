// A grid-stride copy kernel: 16-byte vector loads, four in flight per thread, the grid sized to fill every SM once.
#include "kernels/reference/family.cuh"

namespace bb::reference {
namespace {

struct copy_kernel_mover {
  static constexpr int k_kernels = 1;
  int blocks = 0;

  copy_kernel_mover() = default;
  explicit copy_kernel_mover(std::uint64_t bytes) {
    int device = 0, sms = 0, per_sm = 0;
    BB_CUDA_CALL(cudaGetDevice(&device));
    BB_CUDA_CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    BB_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, copy_kernel, k_threads, 0));
    const std::uint64_t needed = (bytes / 16 + k_threads - 1) / k_threads;
    blocks = static_cast<int>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(needed, std::uint64_t(sms) * per_sm)));
  }

  void enqueue(const unsigned char* in, unsigned char* out, std::uint64_t bytes, cudaStream_t stream) const {
    const std::size_t vectors = bytes / 16; // cudaMalloc'd buffers are 256-byte aligned
    copy_kernel<<<blocks, k_threads, 0, stream>>>(reinterpret_cast<const uint4*>(in), reinterpret_cast<uint4*>(out),
                                                  vectors, in + vectors * 16, out + vectors * 16,
                                                  static_cast<int>(bytes % 16));
    BB_CUDA_CALL(cudaGetLastError());
  }
};

} // namespace

BB_REGISTER_VARIANT_WITH_PLAN(family(), "copy", "grid-stride copy kernel, 16-byte loads, no shared memory",
                              factory<copy_kernel_mover>(), no_shared_access);
} // namespace bb::reference

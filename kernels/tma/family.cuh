#pragma once
// TMA family (sm_90): one warp per block loads a 32-row float box with cp.async.bulk.tensor
// (rows of 32, 64 or 128 bytes, TMA swizzle none, 32B, 64B or 128B), waits on an mbarrier, then
// reads it back with lane = row 16-byte loads (chunk k of every row at once) through the same
// swizzle, and writes it out unswizzled. TMA's own writes have no shared wavefront counter (their
// lost arbitrations show as arbitration conflicts); the read-back shows what each mode buys:
// without swizzle 8 rows of one chunk share a bank group, with the mode matching the row width
// they do not. Variants differ in the swizzle mode; the box's row width is a parameter.
#include <cstdint>
#include <memory>
#include <string>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "kernels/common/params.hpp"
#include "kernels/common/in_out_problem.cuh"
#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_fill.cuh"
#include "kernels/common/copied_input.hpp"
#include "kernels/common/host_device.hpp"
#include "runner/launch/cuda_call.hpp"
#include "runner/model/matrix_access.hpp"
#include "runner/registry/registry.hpp"
#include "kernels/tma/kernel.cuh"

namespace bb::tma {

inline constexpr std::int64_t k_max_tiles = 1 << 16;

inline const family_info& family() {
  static const family_info f{
      "tma",
      "TMA (cp.async.bulk.tensor) loads of a 32-row float box, swizzle none/32B/64B/128B, read back lane = row",
      {{"row_bytes", 0,
        "bytes per box row: 32, 64 or 128 (a swizzled box's row is exactly its span); 0: the span, 128 unswizzled"},
       {"batch", 4096, "boxes, one warp-sized block each"}}};
  return f;
}

struct config {
  int row_bytes = 128;
  std::int64_t tiles = 0;
};

/// `span`: the mode's span in bytes (0: no swizzle, any row width).
inline config checked_config(const nlohmann::json& params, int span) {
  config c;
  auto rb = param::integer(params, "row_bytes");
  if (rb == 0) rb = span != 0 ? span : 128;
  if (rb != 32 && rb != 64 && rb != 128)
    throw unsupported_parameter("row_bytes = " + std::to_string(rb) + " is not one of 32, 64, 128");
  // TMA refuses a box row wider than the span; a narrower one is accepted by the driver but faulted
  // on an H200 (illegal address in sw64 at 32-byte rows, sw128 at 32 and 64), so a swizzled box's
  // row is exactly its span, as in CuTe's swizzle atoms.
  if (span != 0 && rb != span)
    throw unsupported_parameter("row_bytes = " + std::to_string(rb) + " is not the " + std::to_string(span) +
                                "-byte swizzle span (a swizzled box row must be exactly its span; use row_bytes: " +
                                std::to_string(span) + ")");
  c.row_bytes = static_cast<int>(rb);
  c.tiles = param::in_range(params, "batch", 1, k_max_tiles);
  return c;
}

inline CUtensorMapSwizzle swizzle_of(model::tma_swizzle mode) {
  switch (mode) {
  case model::tma_swizzle::none: return CU_TENSOR_MAP_SWIZZLE_NONE;
  case model::tma_swizzle::b32: return CU_TENSOR_MAP_SWIZZLE_32B;
  case model::tma_swizzle::b64: return CU_TENSOR_MAP_SWIZZLE_64B;
  case model::tma_swizzle::b128: return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  return CU_TENSOR_MAP_SWIZZLE_NONE;
}

/// The driver's cuTensorMapEncodeTiled through the runtime, so nothing links libcuda.
inline PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  BB_CUDA_CALL(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || fn == nullptr)
    throw unsupported_parameter("this driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12 and sm_90)");
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
}

template <model::tma_swizzle Mode> class tma_problem final : public in_out_problem<float> {
public:
  tma_problem(const config& c, std::uint64_t seed) : in_out_problem(floats(c), floats(c)), m_config(c), m_seed(seed) {
    fill_uniform_device(m_in.get(), m_in.size(), seed);
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(c.row_bytes / 4), static_cast<cuuint64_t>(c.tiles * k_rows)};
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>(c.row_bytes)};
    const cuuint32_t box[2] = {static_cast<cuuint32_t>(c.row_bytes / 4), k_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUresult r = encode_tiled()(&m_map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, m_in.get(), dims, strides, box,
                                      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_of(Mode),
                                      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
      throw unsupported_parameter("cuTensorMapEncodeTiled failed with CUresult " + std::to_string(r));
  }

  void launch(void* stream) override {
    const auto s = static_cast<cudaStream_t>(stream);
    const dim3 grid(static_cast<unsigned>(m_config.tiles));
    if (m_config.row_bytes == 32) tma_kernel<32, Mode><<<grid, 32, 0, s>>>(m_map, m_out.get());
    if (m_config.row_bytes == 64) tma_kernel<64, Mode><<<grid, 32, 0, s>>>(m_map, m_out.get());
    if (m_config.row_bytes == 128) tma_kernel<128, Mode><<<grid, 32, 0, s>>>(m_map, m_out.get());
    BB_CUDA_CALL(cudaGetLastError());
  }

  /// Bit-exact: reading through model::tma_swizzled must undo the hardware's swizzle.
  verify_result verify() override { return verify_each(copied_input{m_seed}); }

  [[nodiscard]] int smem_access_bytes() const override { return 16; }

private:
  static std::size_t floats(const config& c) {
    return static_cast<std::size_t>(c.tiles) * k_rows * static_cast<std::size_t>(c.row_bytes / 4);
  }

  config m_config;
  std::uint64_t m_seed = 0;
  CUtensorMap m_map{};
};

constexpr int span_of(model::tma_swizzle mode) {
  return mode == model::tma_swizzle::none ? 0 : 16 << static_cast<int>(mode);
}

template <model::tma_swizzle Mode> problem_factory factory() {
  return [](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
    return std::make_unique<tma_problem<Mode>>(checked_config(params, span_of(Mode)), seed);
  };
}

/// The read-back's requests (TMA's writes are no warp request): RowBytes/16 LDS.128 per box,
/// lane = row, chunk k.
template <model::tma_swizzle Mode> model::access_plan shared_access_plan(const nlohmann::json& params) {
  const config c = checked_config(params, span_of(Mode));
  model::access_plan plan;
  plan.access_bytes = 16;
  for (int k = 0; k < c.row_bytes / 16; ++k) {
    model::warp_access load;
    load.width = 16;
    for (int lane = 0; lane < 32; ++lane)
      load.address[static_cast<std::size_t>(lane)] = box_offset(lane, 16 * k, c.row_bytes, Mode);
    plan.add(static_cast<std::uint64_t>(c.tiles), load);
  }
  const int rb = c.row_bytes;
  plan.tile = model::make_tile_layout("float box", k_rows, rb / 4, 4, rb / 4, [rb](int r, int col) {
    return static_cast<int>(box_offset(r, 4 * col, rb, Mode) / 4);
  });
  return plan;
}

} // namespace bb::tma

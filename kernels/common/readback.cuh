#pragma once
/// Verification in bounded host memory: a device output comes back in pieces of at most
/// k_piece_bytes, through two pinned buffers the process keeps, and each piece is checked on every
/// core while the next one is copied. A 1 GiB output costs 64 MiB of host memory, not 1 GiB.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/common/compare.hpp"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

namespace bb {

inline constexpr std::size_t k_piece_bytes = std::size_t{32} << 20;

namespace detail {

/// Two staging buffers of k_piece_bytes, pinned (so copies run at full speed and overlap the
/// checks) and allocated once: pinning 64 MiB costs more than checking most outputs. Where pinned
/// memory is refused, ordinary memory does the same job, more slowly.
class staging {
public:
  static staging& instance() {
    static staging s;
    return s;
  }
  [[nodiscard]] void* buffer(int i) const { return m_buffers[i]; }
  staging(const staging&) = delete;
  staging& operator=(const staging&) = delete;

private:
  staging() {
    for (int i = 0; i < 2; ++i) {
      if (cudaMallocHost(&m_buffers[i], k_piece_bytes) != cudaSuccess) {
        cudaGetLastError(); // an allocation failure is not sticky; clear it
        m_fallback[i] = std::make_unique<unsigned char[]>(k_piece_bytes);
        m_buffers[i] = m_fallback[i].get();
      }
    }
  }
  ~staging() {
    for (int i = 0; i < 2; ++i)
      if (m_fallback[i] == nullptr && m_buffers[i] != nullptr) cudaFreeHost(m_buffers[i]);
  }
  void* m_buffers[2] = {nullptr, nullptr};
  std::unique_ptr<unsigned char[]> m_fallback[2];
};

} // namespace detail

/// Copies src[0, count) back piece by piece, in order, and calls check(first, got, n) for each:
/// got[0, n) holds src[first, first + n). The results add up as host::add_piece says. Every piece
/// but the last holds `piece` elements (0: as many as fit k_piece_bytes); a check that needs
/// whole rows or blocks passes a multiple of them. Reads after the work already queued on the
/// default stream.
template <class T, class Check>
verify_result verify_pieces(const T* src, std::size_t count, Check check, std::size_t piece = 0) {
  const std::size_t most = k_piece_bytes / sizeof(T);
  piece = piece == 0 || piece > most ? most : piece;
  auto& staging = detail::staging::instance();
  auto copy = [&](std::size_t p) {
    const std::size_t first = p * piece, n = std::min(piece, count - first);
    BB_CUDA_CALL(cudaMemcpyAsync(staging.buffer(static_cast<int>(p % 2)), src + first, n * sizeof(T),
                                 cudaMemcpyDeviceToHost, nullptr));
  };
  const std::size_t pieces = (count + piece - 1) / piece;
  verify_result total;
  if (pieces > 0) copy(0);
  for (std::size_t p = 0; p < pieces; ++p) {
    BB_CUDA_CALL(cudaStreamSynchronize(nullptr)); // piece p has landed
    if (p + 1 < pieces) copy(p + 1);              // into the buffer piece p - 1 was checked in
    const std::size_t first = p * piece, n = std::min(piece, count - first);
    host::add_piece(total, check(first, static_cast<const T*>(staging.buffer(static_cast<int>(p % 2))), n));
  }
  total.ok = total.mismatches == 0 && total.first_mismatch.empty();
  return total;
}

/// verify_pieces for checks element by element: bad(i, got_i) says whether output element i,
/// which holds got_i, is wrong; describe(i, got_i) words the first wrong one.
template <class T, class Bad, class Describe>
verify_result verify_elements(const T* src, std::size_t count, Bad bad, Describe describe, std::size_t piece = 0) {
  return verify_pieces(
      src, count,
      [&](std::size_t first, const T* got, std::size_t n) {
        return host::count_mismatches(
            n, [&](std::size_t j) { return bad(first + j, got[j]); },
            [&](std::size_t j) { return describe(first + j, got[j]); });
      },
      piece);
}

} // namespace bb

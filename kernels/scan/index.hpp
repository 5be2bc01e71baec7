#pragma once
// The scan family's sizes and index functions, shared by the kernels (nvcc), the access plans and
// the host tests (the C++ compiler alone). No CUDA or standard headers: kernel.cuh includes it.
#include "kernels/common/host_device.hpp"

namespace bb::scan {

inline constexpr int k_elements = 1024; // elements per block's scan
inline constexpr int k_log_elements = 10;

// ---- Blelloch (GPU Gems 3, 39.2.2): the up-sweep and down-sweep pairs ----

/// Level `level` (0..9) of the up-sweep: d = 512 >> level threads work at stride 2^level.
BB_HD constexpr int sweep_threads(int level) { return (k_elements / 2) >> level; }
/// ai and bi of thread t at `offset` = 2^level: bi = ai + offset, the pair the sweep combines.
BB_HD constexpr int sweep_ai(int t, int offset) { return offset * (2 * t + 1) - 1; }
BB_HD constexpr int sweep_bi(int t, int offset) { return offset * (2 * t + 2) - 1; }

// ---- Hillis-Steele (GPU Gems 3, 39.2.1) ----

/// Word of element i in buffer `buffer` (0 or 1) of temp[2][1024].
BB_HD constexpr int hs_word(int buffer, int i) { return buffer * k_elements + i; }

} // namespace bb::scan

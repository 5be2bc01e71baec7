#pragma once
/// BB_HD marks index functions that kernels (nvcc) and host code (access plans, CPU references,
/// host tests built by the C++ compiler alone) share, so the two cannot drift apart.
#if defined(__CUDACC__)
#define BB_HD __host__ __device__
#else
#define BB_HD
#endif

// The four tile_roundtrip instances of experiments/cute/tile.cu (experiments/cute/ldmatrix.yaml),
// whose PTX tests/unit/test_ptx_warp.cpp runs (tests/data/ptx/README.md says how cute.ptx was made).
#include "experiments/cute/tile.cu"

template __global__ void tile_roundtrip<row_major>(const cute::half_t*, cute::half_t*);
template __global__ void tile_roundtrip<padded>(const cute::half_t*, cute::half_t*);
template __global__ void tile_roundtrip<swizzled>(const cute::half_t*, cute::half_t*);
template __global__ void tile_roundtrip<swizzled_elements>(const cute::half_t*, cute::half_t*);

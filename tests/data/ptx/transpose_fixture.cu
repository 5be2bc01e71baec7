// The two layouts of experiments/source/transpose.cu that tests/unit/test_ptx_*.cpp run, as PTX.
#include "experiments/source/transpose.cu"
template __global__ void transpose<naive, 32, 8>(const float*, float*, int);
template __global__ void transpose<padded, 32, 8>(const float*, float*, int);

// Sums of 8 consecutive 16-bit floats: accumulated in the 16-bit type (7 roundings), or in float
// and rounded once. The two differ by a few units in the last place: equal within a tolerance,
// rarely bit for bit.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <class T> __global__ void sum8(const T* in, T* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  T acc = in[8 * i];
  for (int k = 1; k < 8; ++k) acc = acc + in[8 * i + k];
  out[i] = acc;
}

template <class T> __global__ void sum8_float(const T* in, T* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0;
  for (int k = 0; k < 8; ++k) acc += static_cast<float>(in[8 * i + k]);
  out[i] = T(acc);
}

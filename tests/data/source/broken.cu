// A kernel with a type error on line 5: validate must name this file and line.
extern "C" __global__ void broken(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = undeclared_value * 2.0f;
}

// line 3 uses a name nobody declared
__global__ void broken(float* out, int n) {
  out[0] = undeclared_value;
}

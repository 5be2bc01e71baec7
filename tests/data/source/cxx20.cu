// C++20 (a requires-clause): compiles with `options: [-std=c++20]`, not with the default C++17.
template <typename T>
  requires(sizeof(T) == 4)
__global__ void fill_word(T* out, T value) {
  out[threadIdx.x] = value;
}

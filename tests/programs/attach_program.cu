// A small CUDA program for `bankbench attach` tests: the transposes of experiments/source/
// transpose.cu (naive: 32-way column reads; padded: none) launched as `run` launches them for n =
// 1024, an in-place increment whose result shows whether replay restored memory, a launch inside an
// NVTX range, and one launch through a CUDA graph.
//
//   attach_program [normal | skew PAD | crash | hang | exit CODE]
//
// normal: the launches above, then "attach_program: ok" and exit 0 (1 when a result is wrong).
// skew PAD: only skew_copy with the given padding (0: 32-way column reads, 1: none), launched twice:
// one kernel name whose conflicts change with an argument, for the regression gate.
// crash: the transposes, then a segmentation fault. hang: the transposes, then sleeps forever.
// exit CODE: the transposes, then exit(CODE).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include "experiments/source/transpose.cu"

namespace {

#define CHECK(call)                                                                   \
  do {                                                                                \
    const cudaError_t e = (call);                                                     \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "attach_program: %s: %s\n", #call, cudaGetErrorString(e)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (false)

__global__ void bump(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

// Copies a 32x32 tile through shared memory with rows of 32 + pad words, read by column.
__global__ void skew_copy(const float* in, float* out, int pad) {
  extern __shared__ float tile[];
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int j = ty; j < 32; j += blockDim.y) tile[j * (32 + pad) + tx] = in[blockIdx.x * 1024 + j * 32 + tx];
  __syncthreads();
  for (int j = ty; j < 32; j += blockDim.y) out[blockIdx.x * 1024 + j * 32 + tx] = tile[tx * (32 + pad) + j];
}

constexpr int k_n = 1024;

void transposes(const float* in, float* out) {
  const dim3 grid(k_n / 32, k_n / 32), block(32, 8);
  transpose<naive, 32, 8><<<grid, block>>>(in, out, k_n);
  transpose<padded, 32, 8><<<grid, block>>>(in, out, k_n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
}

int skew(int pad) {
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, 64 * 1024 * sizeof(float)));
  CHECK(cudaMalloc(&out, 64 * 1024 * sizeof(float)));
  CHECK(cudaMemset(in, 0, 64 * 1024 * sizeof(float)));
  // The same dynamic shared memory whatever the padding: one launch shape, so one identity.
  for (int i = 0; i < 2; ++i) skew_copy<<<64, dim3(32, 8), 32 * 33 * sizeof(float)>>>(in, out, pad);
  CHECK(cudaDeviceSynchronize());
  std::printf("attach_program: skew %d ok\n", pad);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "normal";
  if (mode == "skew") return skew(argc > 2 ? std::atoi(argv[2]) : 0);

  std::vector<float> host(static_cast<std::size_t>(k_n) * k_n);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 9973);
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, host.size() * sizeof(float)));
  CHECK(cudaMalloc(&out, host.size() * sizeof(float)));
  CHECK(cudaMemcpy(in, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  transposes(in, out);

  if (mode == "crash") std::raise(SIGSEGV);
  if (mode == "hang")
    for (;;) pause();
  if (mode == "exit") return argc > 2 ? std::atoi(argv[2]) : 0;

  std::vector<float> back(host.size());
  CHECK(cudaMemcpy(back.data(), out, back.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int r = 0; r < k_n; ++r)
    for (int c = 0; c < k_n; ++c)
      wrong += back[static_cast<std::size_t>(c) * k_n + r] != host[static_cast<std::size_t>(r) * k_n + c];

  // In place: profiled with replay, each element must still go up by exactly one per launch.
  constexpr int k_count = 1 << 16;
  int* counters = nullptr;
  CHECK(cudaMalloc(&counters, k_count * sizeof(int)));
  CHECK(cudaMemset(counters, 0, k_count * sizeof(int)));
  for (int i = 0; i < 3; ++i) bump<<<k_count / 256, 256>>>(counters, k_count);

  nvtxRangePushA("second pass");
  transpose<naive, 32, 8><<<dim3(k_n / 32, k_n / 32), dim3(32, 8)>>>(in, out, k_n);
  nvtxRangePop();

  // One launch through a CUDA graph.
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreate(&stream));
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  bump<<<k_count / 256, 256, 0, stream>>>(counters, k_count);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaStreamSynchronize(stream));

  std::vector<int> seen(k_count);
  CHECK(cudaMemcpy(seen.data(), counters, k_count * sizeof(int), cudaMemcpyDeviceToHost));
  for (const int v : seen) wrong += v != 4;
  if (wrong != 0) {
    std::printf("attach_program: %d wrong values\n", wrong);
    return 1;
  }
  std::printf("attach_program: ok\n");
  return 0;
}

#include "runner/inject/l2_flush.hpp"

#include <cstddef>
#include <map>
#include <mutex>
#include <string>

#include "runner/common/error.hpp"

namespace bb::inject {

namespace {

// The reading kernel as PTX, so that the library carries no fat binary of its own (it is loaded
// into programs before their runtime): each thread ORs 16-byte words read with ld.global.cg (L2
// only: L1 shares its storage with shared memory, and filling it left extra shared-memory
// wavefronts in the next kernel in `run`'s measurements) over a grid-stride loop, and writes the
// result only in a case the zero-filled buffer never gives, so the lines left in L2 are clean.
constexpr const char* k_read_all_ptx = R"(.version 7.0
.target sm_70
.address_size 64
.visible .entry bb_read_all(.param .u64 p_words, .param .u64 p_count, .param .u64 p_sink)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [p_words];
  ld.param.u64 %rd2, [p_count];
  ld.param.u64 %rd3, [p_sink];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd4, %r1, %r2;
  cvt.u64.u32 %rd5, %r3;
  add.u64 %rd4, %rd4, %rd5;
  mul.wide.u32 %rd6, %r4, %r2;
  mov.u32 %r5, 0;
next:
  setp.ge.u64 %p1, %rd4, %rd2;
  @%p1 bra done;
  shl.b64 %rd7, %rd4, 4;
  add.u64 %rd8, %rd1, %rd7;
  ld.global.cg.v4.u32 {%r6, %r7, %r8, %r9}, [%rd8];
  or.b32 %r5, %r5, %r6;
  or.b32 %r5, %r5, %r7;
  or.b32 %r5, %r5, %r8;
  or.b32 %r5, %r5, %r9;
  add.u64 %rd4, %rd4, %rd6;
  bra next;
done:
  setp.ne.u32 %p2, %r5, 0xdeadbeef;
  @%p2 bra end;
  st.global.u32 [%rd3], %r5;
end:
  ret;
}
)";

struct flush_scratch {
  CUmodule module = nullptr;
  CUfunction kernel = nullptr;
  CUdeviceptr words = 0, sink = 0;
  std::size_t count = 0; ///< 16-byte words
  unsigned blocks = 1;
};

void flush_check(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  const char* name = "unknown error";
  cuGetErrorName(r, &name);
  throw api_error(std::string("the L2 flush before the profiled launch failed in ") + call + ": " + name +
                  "; `bankbench attach --cache-control none` profiles without it");
}

flush_scratch make_scratch() {
  flush_scratch s;
  CUdevice device = 0;
  flush_check(cuCtxGetDevice(&device), "cuCtxGetDevice");
  int l2 = 0, sms = 0;
  flush_check(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device), "cuDeviceGetAttribute");
  flush_check(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device), "cuDeviceGetAttribute");
  const std::size_t bytes = 2 * static_cast<std::size_t>(l2 > 0 ? l2 : (64 << 20));
  s.count = bytes / 16;
  s.blocks = 4 * static_cast<unsigned>(sms > 0 ? sms : 1);
  flush_check(cuModuleLoadData(&s.module, k_read_all_ptx), "cuModuleLoadData");
  flush_check(cuModuleGetFunction(&s.kernel, s.module, "bb_read_all"), "cuModuleGetFunction");
  flush_check(cuMemAlloc(&s.words, bytes), "cuMemAlloc");
  flush_check(cuMemsetD8(s.words, 0, bytes), "cuMemsetD8");
  flush_check(cuMemAlloc(&s.sink, sizeof(unsigned)), "cuMemAlloc");
  return s;
}

} // namespace

void flush_l2(CUcontext ctx) {
  static std::mutex mutex;
  static std::map<CUcontext, flush_scratch> scratches; // kept for the process, like `run`'s buffer
  const std::lock_guard lock(mutex);
  auto it = scratches.find(ctx);
  if (it == scratches.end()) it = scratches.emplace(ctx, make_scratch()).first;
  flush_scratch& s = it->second;
  void* args[] = {&s.words, &s.count, &s.sink};
  flush_check(cuLaunchKernel(s.kernel, s.blocks, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel");
  flush_check(cuCtxSynchronize(), "cuCtxSynchronize");
}

} // namespace bb::inject

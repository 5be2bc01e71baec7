// Hillis-Steele, double-buffered: 1024 threads add the element offset = 1, 2, ..., 512 back; contiguous, no conflict.
#include "kernels/scan/family.cuh"

namespace bb::scan {
namespace {

struct hillis_steele_variant {
  static void launch(const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cudaStream_t stream) {
    hillis_steele_kernel<<<static_cast<unsigned>(blocks_of(n)), k_elements, 0, stream>>>(in, out, n);
    BB_CUDA_CALL(cudaGetLastError());
  }
};

/// One block's requests with `valid` elements inside the input, added `count` times.
void add_block(model::access_plan& plan, std::uint64_t count, std::int64_t valid) {
  auto request = [](model::access_kind kind) {
    model::warp_access r;
    r.kind = kind;
    return r;
  };
  auto word = [](int buffer, int i) { return static_cast<std::uint32_t>(hs_word(buffer, i)) * 4; };
  int pout = 0;
  for (int w = 0; w < k_elements / 32; ++w) {
    auto first = request(model::access_kind::store);
    for (int lane = 0; lane < 32; ++lane) first.address[lane] = word(0, w * 32 + lane);
    plan.add(count, first);
  }
  for (int offset = 1; offset < k_elements; offset *= 2) {
    const int pin = pout;
    pout = 1 - pout;
    for (int w = 0; w < k_elements / 32; ++w) {
      auto own = request(model::access_kind::load), back = own, store = request(model::access_kind::store);
      back.active = 0;
      for (int lane = 0; lane < 32; ++lane) {
        const int t = w * 32 + lane;
        own.address[lane] = word(pin, t);
        store.address[lane] = word(pout, t);
        if (t < offset) continue;
        back.address[lane] = word(pin, t - offset);
        back.active |= 1u << lane;
      }
      plan.add(count, own);
      plan.add(count, back);
      plan.add(count, store);
    }
  }
  for (int w = 0; w < k_elements / 32; ++w) {
    auto last = request(model::access_kind::load);
    last.active = 0;
    for (int lane = 0; lane < 32; ++lane) {
      const int t = w * 32 + lane;
      last.address[lane] = word(pout, t);
      if (t < valid) last.active |= 1u << lane;
    }
    plan.add(count, last);
  }
}

model::access_plan hillis_steele_access_plan(const nlohmann::json& params) {
  const std::int64_t n = checked_n(params);
  model::access_plan plan;
  plan.access_bytes = 4;
  if (n / k_elements > 0) add_block(plan, static_cast<std::uint64_t>(n / k_elements), k_elements);
  if (n % k_elements != 0) add_block(plan, 1, n % k_elements);
  return plan;
}

} // namespace

BB_REGISTER_VARIANT_WITH_PLAN(family(), "hillis_steele",
                              "double-buffered temp[2][1024], 1024 threads, log2(1024) steps",
                              factory<hillis_steele_variant>(), hillis_steele_access_plan);
} // namespace bb::scan

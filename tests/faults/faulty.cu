// Deliberately broken kernels, built only into bankbench_faults for the fault-isolation tests.
#include <cstdint>
#include <memory>

#include <cuda_runtime.h>

#include <nlohmann/json.hpp>

#include "kernels/common/device_buffer.cuh"
#include "runner/launch/cuda_call.hpp"
#include "runner/registry/registry.hpp"

namespace bb::faulty {

enum class fault { none, illegal_address, trap, hang, wrong_result };

inline const family_info& family() {
  static const family_info f{"faulty",
                             "kernels that fault, hang or compute wrong results (tests only)",
                             {{"n", 1024, "elements"}}};
  return f;
}

__global__ void faulty_kernel(int* out, int n, fault kind, volatile int* never_set) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  if (kind == fault::illegal_address && i == 0) never_set[1 << 28] = 1;
  if (kind == fault::trap && i == 0) __trap();
  if (kind == fault::hang)
    while (*never_set == 0) { // nothing ever writes it: the kernel never returns
    }
  out[i] = kind == fault::wrong_result && i == n / 2 ? -1 : i;
}

class faulty_problem final : public problem {
public:
  faulty_problem(const nlohmann::json& params, fault kind)
      : m_n(params.at("n").get<int>()), m_kind(kind), m_out(static_cast<std::size_t>(m_n)), m_flag(1) {
    BB_CUDA_CALL(cudaMemset(m_flag.get(), 0, sizeof(int)));
  }
  void launch(void* stream) override {
    faulty_kernel<<<(m_n + 255) / 256, 256, 0, static_cast<cudaStream_t>(stream)>>>(
        m_out.get(), m_n, m_kind, m_kind == fault::illegal_address ? nullptr : m_flag.get());
    BB_CUDA_CALL(cudaGetLastError());
  }
  void poison_output() override { BB_CUDA_CALL(cudaMemset(m_out.get(), 0xff, m_out.bytes())); }
  verify_result verify() override {
    std::vector<int> got(m_out.size());
    BB_CUDA_CALL(cudaMemcpy(got.data(), m_out.get(), m_out.bytes(), cudaMemcpyDeviceToHost));
    verify_result r;
    r.checked = got.size();
    for (int i = 0; i < m_n; ++i)
      if (got[static_cast<std::size_t>(i)] != i && r.mismatches++ == 0)
        r.first_mismatch = "out[" + std::to_string(i) + "] = " + std::to_string(got[static_cast<std::size_t>(i)]);
    r.ok = r.mismatches == 0;
    return r;
  }
  [[nodiscard]] std::uint64_t bytes_moved() const override { return m_out.bytes(); }
  [[nodiscard]] int smem_access_bytes() const override { return 4; }
  [[nodiscard]] std::uint64_t device_bytes() const override { return m_out.bytes(); }

private:
  int m_n;
  fault m_kind;
  device_buffer<int> m_out;
  device_buffer<int> m_flag;
};

problem_factory factory(fault kind) {
  return [kind](const nlohmann::json& params, std::uint64_t) -> std::unique_ptr<problem> {
    return std::make_unique<faulty_problem>(params, kind);
  };
}

BB_REGISTER_VARIANT(family(), "ok", "writes out[i] = i", factory(fault::none));
BB_REGISTER_VARIANT(family(), "illegal_address", "writes through a null pointer", factory(fault::illegal_address));
BB_REGISTER_VARIANT(family(), "trap", "executes a trap instruction", factory(fault::trap));
BB_REGISTER_VARIANT(family(), "hang", "spins on a flag nothing sets", factory(fault::hang));
BB_REGISTER_VARIANT(family(), "wrong_result", "writes -1 in the middle", factory(fault::wrong_result));

} // namespace bb::faulty

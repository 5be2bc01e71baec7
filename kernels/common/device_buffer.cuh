#pragma once
/// Owning device allocation; freed when the configuration's problem is destroyed.
#include <cstddef>
#include <utility>

#include <cuda_runtime_api.h>

#include "launch/cuda_call.hpp"

namespace bb {

template <class T> class device_buffer {
public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) : m_count(count) {
    BB_CUDA_CALL(cudaMalloc(reinterpret_cast<void**>(&m_ptr), count * sizeof(T)));
  }
  ~device_buffer() {
    if (m_ptr != nullptr) cudaFree(m_ptr); // no throw from a destructor; a sticky error shows elsewhere
  }
  device_buffer(device_buffer&& o) noexcept
      : m_ptr(std::exchange(o.m_ptr, nullptr)), m_count(std::exchange(o.m_count, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(m_ptr, o.m_ptr);
    std::swap(m_count, o.m_count);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  [[nodiscard]] T* get() const { return m_ptr; }
  [[nodiscard]] std::size_t size() const { return m_count; }
  [[nodiscard]] std::size_t bytes() const { return m_count * sizeof(T); }

private:
  T* m_ptr = nullptr;
  std::size_t m_count = 0;
};

} // namespace bb

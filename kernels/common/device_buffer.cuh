#pragma once
/// Owning device allocation; given back when the configuration's problem is destroyed. The memory
/// comes from launch::device_allocate (a pool by default: launch/device_memory.hpp says why).
#include <cstddef>
#include <utility>

#include "runner/launch/device_memory.hpp"

namespace bb {

template <class T> class device_buffer {
public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) : m_block(launch::device_allocate(count * sizeof(T))), m_count(count) {}
  ~device_buffer() { launch::device_release(m_block); }
  device_buffer(device_buffer&& o) noexcept
      : m_block(std::exchange(o.m_block, launch::device_block{})), m_count(std::exchange(o.m_count, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(m_block, o.m_block);
    std::swap(m_count, o.m_count);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  [[nodiscard]] T* get() const { return static_cast<T*>(m_block.ptr); }
  [[nodiscard]] std::size_t size() const { return m_count; }
  [[nodiscard]] std::size_t bytes() const { return m_count * sizeof(T); }

private:
  launch::device_block m_block;
  std::size_t m_count = 0;
};

} // namespace bb

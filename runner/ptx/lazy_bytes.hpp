#pragma once
/// A global buffer's bytes for the PTX interpreter, made a page at a time on first access where a
/// fill function gives them: a 64 MiB matrix of which a sampled run reads a few blocks costs those
/// pages, not 64 MiB of generation, copying and page faults. No CUDA headers.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace bb::ptx {

class lazy_bytes {
public:
  /// Writes the buffer's initial bytes [offset, offset + size) to `out`.
  using fill_function = std::function<void(std::size_t offset, std::size_t size, std::uint8_t* out)>;
  /// Bytes made at once: a multiple of every element size, so that no element spans two pages.
  static constexpr std::size_t k_page = 4096;

  lazy_bytes() = default;
  /// Every byte given.
  explicit lazy_bytes(const std::vector<std::uint8_t>& bytes);
  /// `size` bytes, each page made by `fill` on its first access.
  lazy_bytes(std::size_t size, fill_function fill);
  lazy_bytes(const lazy_bytes& o);
  lazy_bytes(lazy_bytes&& o) noexcept = default;
  lazy_bytes& operator=(const lazy_bytes& o);
  lazy_bytes& operator=(lazy_bytes&& o) noexcept = default;
  ~lazy_bytes() = default;

  [[nodiscard]] std::size_t size() const { return m_size; }
  /// Bytes [offset, offset + n), made first where they are not yet; offset + n <= size().
  std::uint8_t* at(std::size_t offset, std::size_t n) {
    if (m_fill) make(offset, n);
    return m_data.get() + offset;
  }
  /// Every byte, made.
  std::span<const std::uint8_t> all();
  /// Bytes [offset, offset + n) that are made already; throws std::logic_error where one is not,
  /// a read of bytes nothing gave.
  [[nodiscard]] const std::uint8_t* made(std::size_t offset, std::size_t n) const;
  /// Whether page `page` (bytes from page * k_page) is made.
  [[nodiscard]] bool page_made(std::size_t page) const {
    return !m_fill || (m_made[page / 64] >> (page % 64) & 1u) != 0;
  }

private:
  void make(std::size_t offset, std::size_t n);
  std::unique_ptr<std::uint8_t[]> m_data; ///< not touched by its allocation: untouched pages cost nothing
  std::size_t m_size = 0;
  fill_function m_fill;              ///< empty once every page is made
  std::vector<std::uint64_t> m_made; ///< one bit per page
  std::size_t m_pages_left = 0;
};

} // namespace bb::ptx

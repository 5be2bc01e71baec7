#include "runner/ptx/lazy_bytes.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace bb::ptx {

lazy_bytes::lazy_bytes(const std::vector<std::uint8_t>& bytes)
    : m_data(new std::uint8_t[bytes.size()]), m_size(bytes.size()) {
  if (!bytes.empty()) std::memcpy(m_data.get(), bytes.data(), bytes.size());
}

lazy_bytes::lazy_bytes(std::size_t size, fill_function fill)
    : m_data(new std::uint8_t[size]), m_size(size), m_fill(std::move(fill)) {
  m_pages_left = (size + k_page - 1) / k_page;
  m_made.assign((m_pages_left + 63) / 64, 0);
  if (m_pages_left == 0) m_fill = nullptr;
}

lazy_bytes::lazy_bytes(const lazy_bytes& o)
    : m_data(new std::uint8_t[o.m_size]),
      m_size(o.m_size),
      m_fill(o.m_fill),
      m_made(o.m_made),
      m_pages_left(o.m_pages_left) {
  for (std::size_t page = 0; page * k_page < m_size; ++page)
    if (o.page_made(page)) {
      const std::size_t from = page * k_page;
      std::memcpy(m_data.get() + from, o.m_data.get() + from, std::min(k_page, m_size - from));
    }
}

lazy_bytes& lazy_bytes::operator=(const lazy_bytes& o) {
  if (this != &o) *this = lazy_bytes(o);
  return *this;
}

void lazy_bytes::make(std::size_t offset, std::size_t n) {
  if (n == 0) return;
  for (std::size_t page = offset / k_page, last = (offset + n - 1) / k_page; page <= last; ++page) {
    std::uint64_t& word = m_made[page / 64];
    const std::uint64_t bit = std::uint64_t{1} << (page % 64);
    if ((word & bit) != 0) continue;
    const std::size_t from = page * k_page, size = std::min(k_page, m_size - from);
    m_fill(from, size, m_data.get() + from);
    word |= bit;
    if (--m_pages_left == 0) {
      m_fill = nullptr; // every page made: accesses skip the check from now on
      return;
    }
  }
}

std::span<const std::uint8_t> lazy_bytes::all() {
  if (m_fill) make(0, m_size);
  return {m_data.get(), m_size};
}

const std::uint8_t* lazy_bytes::made(std::size_t offset, std::size_t n) const {
  if (!m_fill) return m_data.get() + offset; // every page made
  for (std::size_t page = offset / k_page; n > 0 && page <= (offset + n - 1) / k_page; ++page)
    if (!page_made(page))
      throw std::logic_error("bytes " + std::to_string(offset) + " .. " + std::to_string(offset + n - 1) +
                             " of a buffer are read before anything gave them");
  return m_data.get() + offset;
}

} // namespace bb::ptx

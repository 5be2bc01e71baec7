#include "runner/source/shared_bytes.hpp"

namespace bb::source {

shared_bytes::handle shared_bytes::find(const std::string& key) {
  std::lock_guard<std::mutex> lock(m_mutex);
  const auto it = m_index.find(key);
  if (it == m_index.end()) return nullptr;
  m_order.splice(m_order.begin(), m_order, it->second);
  return it->second->second.first;
}

shared_bytes::handle shared_bytes::keep(const std::string& key, blocks value) {
  std::size_t bytes = 0;
  for (const auto& b : value) bytes += b.size();
  auto h = std::make_shared<const blocks>(std::move(value));
  std::lock_guard<std::mutex> lock(m_mutex);
  if (const auto it = m_index.find(key); it != m_index.end()) { // a second writer of the same key: the first stays
    m_order.splice(m_order.begin(), m_order, it->second);
    return it->second->second.first;
  }
  if (bytes > m_budget) return h;
  while (m_held + bytes > m_budget && !m_order.empty()) {
    m_held -= m_order.back().second.second;
    m_index.erase(m_order.back().first);
    m_order.pop_back();
  }
  m_order.push_front({key, {h, bytes}});
  m_index.emplace(key, m_order.begin());
  m_held += bytes;
  return h;
}

std::size_t shared_bytes::held_bytes() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_held;
}

std::size_t shared_bytes::entries() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_order.size();
}

shared_bytes& shared_bytes::process() {
  static shared_bytes cache(std::size_t{1} << 30);
  return cache;
}

} // namespace bb::source

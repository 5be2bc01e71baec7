#pragma once
/// Host bytes that the configurations of one process share, kept up to a byte budget with the
/// least recently used entry dropped first. A source variant and its reference read the same
/// initial contents, and every variant checked against a reference at the same parameters compares
/// with the same outputs; at n = 4096 a float transpose's 64 MiB were generated and copied twice
/// and the reference run again for each of its three checked variants. No CUDA.
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace bb::source {

class shared_bytes {
public:
  using blocks = std::vector<std::vector<unsigned char>>;
  using handle = std::shared_ptr<const blocks>;

  explicit shared_bytes(std::size_t budget_bytes) : m_budget(budget_bytes) {}

  /// The entry under `key` (now the most recently used), or null.
  handle find(const std::string& key);
  /// Keeps `value` under `key` where it fits the budget, dropping the least recently used
  /// entries to make room; returns it either way (a handle stays valid after its entry is dropped).
  handle keep(const std::string& key, blocks value);

  [[nodiscard]] std::size_t held_bytes() const;
  [[nodiscard]] std::size_t entries() const;

  /// The process's cache of source variants' inputs and reference outputs: 1 GiB.
  static shared_bytes& process();

private:
  using entry = std::pair<std::string, std::pair<handle, std::size_t>>;
  mutable std::mutex m_mutex;
  std::size_t m_budget;
  std::size_t m_held = 0;
  std::list<entry> m_order; ///< most recently used first
  std::unordered_map<std::string, std::list<entry>::iterator> m_index;
};

} // namespace bb::source

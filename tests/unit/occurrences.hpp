#pragma once
// How often a piece of text occurs in a page: the render tests count SVG and HTML elements by it.
#include <cstddef>
#include <string>

namespace bb::test {

inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

} // namespace bb::test

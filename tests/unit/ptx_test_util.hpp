#pragma once
/// The PTX fixtures of tests/data/ptx (README there says how they were made).
#include <fstream>
#include <sstream>
#include <string>

namespace bb::ptx::test {

inline std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(BB_TEST_DATA) + "/ptx/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline constexpr const char* k_naive = "_Z9transposeI5naiveLi32ELi8EEvPKfPfi";
inline constexpr const char* k_padded = "_Z9transposeI6paddedLi32ELi8EEvPKfPfi";

} // namespace bb::ptx::test

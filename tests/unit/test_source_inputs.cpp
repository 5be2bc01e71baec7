// Source variants' initial buffer contents, on the host: the seeded uniform inputs are the
// built-in families' (so a source transpose reads what kernels/transpose reads), iota wraps,
// files must be the buffer's size.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "runner/common/error.hpp"
#include "kernels/common/uniform.hpp" // kernels/common: the generator the built-in families use
#include "runner/source/inputs.hpp"

namespace {

using bb::source::initial_contents;
using bb::source::type_named;

bb::config::source_arg buffer(const std::string& type, const std::string& init) {
  bb::config::source_arg a;
  a.name = "buf";
  a.type = type;
  a.init = init;
  return a;
}

TEST(source_inputs, uniform_floats_are_the_built_in_families_inputs) {
  const auto bytes = initial_contents(buffer("float", "uniform"), type_named("float"), 1000, 20261121, 0);
  ASSERT_EQ(bytes.size(), 4000u);
  for (std::size_t i = 0; i < 1000; ++i) {
    float got = 0;
    std::memcpy(&got, bytes.data() + 4 * i, 4);
    ASSERT_EQ(got, bb::host::uniform_at(20261121, i)) << i;
  }
  // A later argument draws its own stream; doubles hold the same float values.
  const auto second = initial_contents(buffer("float", "uniform"), type_named("float"), 1000, 20261121, 1);
  EXPECT_NE(second, bytes);
  const auto doubles = initial_contents(buffer("double", "uniform"), type_named("double"), 10, 7, 0);
  double d = 0;
  std::memcpy(&d, doubles.data() + 8 * 3, 8);
  EXPECT_EQ(d, static_cast<double>(bb::host::uniform_at(7, 3)));
}

TEST(source_inputs, iota_value_and_zeros) {
  const auto bytes = initial_contents(buffer("uint8", "iota"), type_named("uint8"), 600, 1, 0);
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[255], 255);
  EXPECT_EQ(bytes[256], 0); // wraps
  EXPECT_EQ(bytes[599], 599 % 256);
  const auto floats = initial_contents(buffer("float", "iota"), type_named("float"), 5, 1, 0);
  float f = 0;
  std::memcpy(&f, floats.data() + 16, 4);
  EXPECT_EQ(f, 4.0f);
  auto a = buffer("int32", "value");
  a.value = -3;
  const auto values = initial_contents(a, type_named("int32"), 4, 1, 0);
  std::int32_t v = 0;
  std::memcpy(&v, values.data() + 12, 4);
  EXPECT_EQ(v, -3);
  const auto zeros = initial_contents(buffer("uint64", "zeros"), type_named("uint64"), 3, 1, 0);
  EXPECT_EQ(zeros, std::vector<unsigned char>(24, 0));
}

TEST(source_inputs, file_contents_must_fill_the_buffer_exactly) {
  const auto path = std::filesystem::temp_directory_path() / "bb_source_inputs.bin";
  std::ofstream(path, std::ios::binary) << std::string("\x01\x00\x00\x00\x02\x00\x00\x00", 8);
  auto a = buffer("uint32", "file");
  a.file = path.string();
  const auto bytes = initial_contents(a, type_named("uint32"), 2, 1, 0);
  EXPECT_EQ(bytes, (std::vector<unsigned char>{1, 0, 0, 0, 2, 0, 0, 0}));
  try {
    (void)initial_contents(a, type_named("uint32"), 3, 1, 0);
    FAIL() << "no error";
  } catch (const bb::error& e) {
    EXPECT_EQ(std::string(e.what()), "buffer 'buf': " + path.string() + " holds 8 bytes, the buffer 12 (3 x uint32)");
  }
  std::filesystem::remove(path);
  EXPECT_THROW(type_named("float32"), bb::error);
  EXPECT_EQ(bb::source::load_number(bytes.data() + 4, type_named("uint32")), 2.0);
}

} // namespace

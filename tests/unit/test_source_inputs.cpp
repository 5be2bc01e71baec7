// Source variants' initial buffer contents, on the host: the seeded uniform inputs are the
// built-in families' (so a source transpose reads what kernels/transpose reads), iota wraps,
// files must be the buffer's size.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "runner/common/error.hpp"
#include "kernels/common/uniform.hpp" // kernels/common: the generator the built-in families use
#include "runner/source/float16.hpp"
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
  const auto bytes = initial_contents(buffer("float", "uniform"), type_named("float"), 1000, 20261121, 0,
                                      nlohmann::json::object());
  ASSERT_EQ(bytes.size(), 4000u);
  for (std::size_t i = 0; i < 1000; ++i) {
    float got = 0;
    std::memcpy(&got, bytes.data() + 4 * i, 4);
    ASSERT_EQ(got, bb::host::uniform_at(20261121, i)) << i;
  }
  // A later argument draws its own stream; doubles hold the same float values.
  const auto second = initial_contents(buffer("float", "uniform"), type_named("float"), 1000, 20261121, 1,
                                       nlohmann::json::object());
  EXPECT_NE(second, bytes);
  const auto doubles = initial_contents(buffer("double", "uniform"), type_named("double"), 10, 7, 0,
                                        nlohmann::json::object());
  double d = 0;
  std::memcpy(&d, doubles.data() + 8 * 3, 8);
  EXPECT_EQ(d, static_cast<double>(bb::host::uniform_at(7, 3)));
}

TEST(source_inputs, iota_value_and_zeros) {
  const auto bytes = initial_contents(buffer("uint8", "iota"), type_named("uint8"), 600, 1, 0,
                                      nlohmann::json::object());
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[255], 255);
  EXPECT_EQ(bytes[256], 0); // wraps
  EXPECT_EQ(bytes[599], 599 % 256);
  const auto floats = initial_contents(buffer("float", "iota"), type_named("float"), 5, 1, 0, nlohmann::json::object());
  float f = 0;
  std::memcpy(&f, floats.data() + 16, 4);
  EXPECT_EQ(f, 4.0f);
  auto a = buffer("int32", "value");
  a.value = -3;
  const auto values = initial_contents(a, type_named("int32"), 4, 1, 0, nlohmann::json::object());
  std::int32_t v = 0;
  std::memcpy(&v, values.data() + 12, 4);
  EXPECT_EQ(v, -3);
  const auto zeros = initial_contents(buffer("uint64", "zeros"), type_named("uint64"), 3, 1, 0,
                                      nlohmann::json::object());
  EXPECT_EQ(zeros, std::vector<unsigned char>(24, 0));
}

// A formula of the element's index and the configuration's parameters: a histogram's keys at any
// size; integers keep the low bytes (as iota), floats the value; failures name buffer and element.
TEST(source_inputs, a_formula_gives_each_element_from_its_index_and_the_parameters) {
  auto a = buffer("uint32", "formula");
  a.formula = "(i * 7 + i / 32) % bins";
  const auto keys = initial_contents(a, type_named("uint32"), 4096, 1, 0, nlohmann::json{{"bins", 32}, {"n", 4096}});
  for (std::uint64_t i = 0; i < 4096; ++i) {
    std::uint32_t k = 0;
    std::memcpy(&k, keys.data() + 4 * i, 4);
    ASSERT_EQ(k, (i * 7 + i / 32) % 32) << i;
  }
  a = buffer("int8", "formula");
  a.formula = "i * 100 - 1";
  const auto bytes = initial_contents(a, type_named("int8"), 3, 1, 0, nlohmann::json::object());
  EXPECT_EQ(bytes, (std::vector<unsigned char>{0xff, 99, 199})); // -1, 99, 199 mod 256
  a = buffer("float", "formula");
  a.formula = "0 - i";
  const auto floats = initial_contents(a, type_named("float"), 3, 1, 0, nlohmann::json::object());
  float f = 0;
  std::memcpy(&f, floats.data() + 8, 4);
  EXPECT_EQ(f, -2.0f);
  const auto message = [&](const std::string& formula, const nlohmann::json& params) {
    a = buffer("int32", "formula");
    a.formula = formula;
    try {
      (void)initial_contents(a, type_named("int32"), 8, 1, 0, params);
    } catch (const bb::error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("100 / (i - 5)", {}),
            "buffer 'buf': init formula in '100 / (i - 5)': division by zero at column 5 at element i = 5");
  EXPECT_EQ(message("i * tile", {{"n", 4}}),
            "buffer 'buf': init formula 'i * tile' uses 'tile', which is neither i nor a parameter of this "
            "configuration");
  EXPECT_EQ(message("i + T", {{"T", "float"}}),
            "buffer 'buf': init formula 'i + T' uses 'T', which is \"float\" here, not an integer");
  EXPECT_EQ(message("i +", {}),
            "buffer 'buf': bad init formula in 'i +': expected a number, a name or '(' before the end at column 4");
  EXPECT_EQ(bb::source::formula_inputs(a, {{"n", 4}, {"tile", 32}}), "");
  a.formula = "i % tile + n";
  EXPECT_EQ(bb::source::formula_inputs(a, {{"n", 4}, {"tile", 32}, {"pad", 1}}), "tile=32 n=4");
}

TEST(source_inputs, file_contents_must_fill_the_buffer_exactly) {
  const auto path = std::filesystem::temp_directory_path() / "bb_source_inputs.bin";
  std::ofstream(path, std::ios::binary) << std::string("\x01\x00\x00\x00\x02\x00\x00\x00", 8);
  auto a = buffer("uint32", "file");
  a.file = path.string();
  const auto bytes = initial_contents(a, type_named("uint32"), 2, 1, 0, nlohmann::json::object());
  EXPECT_EQ(bytes, (std::vector<unsigned char>{1, 0, 0, 0, 2, 0, 0, 0}));
  try {
    (void)initial_contents(a, type_named("uint32"), 3, 1, 0, nlohmann::json::object());
    FAIL() << "no error";
  } catch (const bb::error& e) {
    EXPECT_EQ(std::string(e.what()), "buffer 'buf': " + path.string() + " holds 8 bytes, the buffer 12 (3 x uint32)");
  }
  std::filesystem::remove(path);
  EXPECT_THROW(type_named("float32"), bb::error);
  EXPECT_EQ(bb::source::load_number(bytes.data() + 4, type_named("uint32")), 2.0);
}

} // namespace

namespace {

TEST(source_inputs, float16_and_bfloat16_hold_floats_uniform_values_rounded) {
  const auto& h = type_named("float16");
  const auto& b = type_named("bfloat16");
  EXPECT_EQ(h.bytes, 2u);
  EXPECT_TRUE(h.is_float && b.is_float);
  const auto halves = initial_contents(buffer("float16", "uniform"), h, 1000, 20261121, 0, nlohmann::json::object());
  const auto bfloats = initial_contents(buffer("bfloat16", "uniform"), b, 1000, 20261121, 0, nlohmann::json::object());
  ASSERT_EQ(halves.size(), 2000u);
  std::size_t inexact = 0;
  for (std::size_t i = 0; i < 1000; ++i) {
    const float f = bb::host::uniform_at(20261121, i);
    std::uint16_t hb = 0, bb16 = 0;
    std::memcpy(&hb, halves.data() + 2 * i, 2);
    std::memcpy(&bb16, bfloats.data() + 2 * i, 2);
    ASSERT_EQ(hb, bb::source::to_float16(f)) << i;
    ASSERT_EQ(bb16, bb::source::to_bfloat16(f)) << i;
    // within half a unit in the last place of the value: 2^-11 and 2^-8 relative
    EXPECT_LE(std::fabs(bb::source::load_number(halves.data() + 2 * i, h) - f), std::ldexp(std::fabs(f), -11)) << i;
    EXPECT_LE(std::fabs(bb::source::load_number(bfloats.data() + 2 * i, b) - f), std::ldexp(std::fabs(f), -8)) << i;
    inexact += bb::source::load_number(halves.data() + 2 * i, h) != f ? 1 : 0;
  }
  EXPECT_GT(inexact, 900u); // 23-bit fractions: nearly every value rounds
  // iota counts exactly as far as the type holds integers (2048 for float16, 256 for bfloat16).
  const auto iota = initial_contents(buffer("float16", "iota"), h, 2050, 1, 0, nlohmann::json::object());
  EXPECT_EQ(bb::source::load_number(iota.data() + 2 * 2047, h), 2047.0);
  EXPECT_EQ(bb::source::load_number(iota.data() + 2 * 2049, h), 2048.0); // 2049 is a tie: to 2048
  const auto biota = initial_contents(buffer("bfloat16", "iota"), b, 300, 1, 0, nlohmann::json::object());
  EXPECT_EQ(bb::source::load_number(biota.data() + 2 * 255, b), 255.0);
  EXPECT_EQ(bb::source::load_number(biota.data() + 2 * 259, b), 260.0);
  auto a = buffer("bfloat16", "value");
  a.value = 0.1;
  const auto values = initial_contents(a, b, 2, 1, 0, nlohmann::json::object());
  EXPECT_EQ(values, (std::vector<unsigned char>{0xcd, 0x3d, 0xcd, 0x3d}));
  const auto zeros = initial_contents(buffer("float16", "zeros"), h, 3, 1, 0, nlohmann::json::object());
  EXPECT_EQ(zeros, std::vector<unsigned char>(6, 0));
}

TEST(source_inputs, an_unknown_type_names_the_closest) {
  try {
    (void)type_named("bfloat61");
    FAIL() << "no error";
  } catch (const bb::error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown element type 'bfloat61' (did you mean 'bfloat16'?)");
  }
}

} // namespace

namespace {

std::vector<unsigned char> halves(std::initializer_list<std::uint16_t> bits) {
  std::vector<unsigned char> out;
  for (const auto b : bits) {
    out.push_back(static_cast<unsigned char>(b & 0xff));
    out.push_back(static_cast<unsigned char>(b >> 8));
  }
  return out;
}

TEST(source_inputs, sixteen_bit_floats_are_compared_as_their_values) {
  using bb::source::elements_match;
  const auto& h = type_named("float16");
  const auto& b = type_named("bfloat16");
  // float16: 1.0 (0x3c00) against 1.0009765625 (0x3c01), one unit in the last place apart.
  const auto one = halves({0x3c00}), next = halves({0x3c01});
  EXPECT_TRUE(elements_match(one.data(), one.data(), h, 0));
  EXPECT_FALSE(elements_match(next.data(), one.data(), h, 0)); // bit for bit by default
  EXPECT_TRUE(elements_match(next.data(), one.data(), h, 1e-3));
  EXPECT_FALSE(elements_match(next.data(), one.data(), h, 9e-4));
  // Relative above 1, absolute below: 1000 (0x63d0) against 1000.5 (0x63d1) passes 5e-4, while
  // 0.001 against 0.0015 passes 5e-4 as well, by the absolute floor.
  const auto thousand = halves({0x63d0}), thousand_and_half = halves({0x63d1});
  EXPECT_TRUE(elements_match(thousand_and_half.data(), thousand.data(), h, 5e-4));
  const auto small = halves({bb::source::to_float16(0.001)}), larger = halves({bb::source::to_float16(0.0015)});
  EXPECT_TRUE(elements_match(larger.data(), small.data(), h, 5e-4 + 1e-6));
  EXPECT_FALSE(elements_match(larger.data(), small.data(), h, 4e-4));
  // bfloat16: 1.0 (0x3f80) against 1.0078125 (0x3f81).
  const auto bone = halves({0x3f80}), bnext = halves({0x3f81});
  EXPECT_TRUE(elements_match(bnext.data(), bone.data(), b, 8e-3));
  EXPECT_FALSE(elements_match(bnext.data(), bone.data(), b, 7e-3));
  // Signed zeros differ in their bits and pass any tolerance; a NaN passes only as the same bits.
  const auto zero = halves({0x0000}), minus_zero = halves({0x8000}), nan = halves({0x7e00}), poison = halves({0xffff});
  EXPECT_FALSE(elements_match(minus_zero.data(), zero.data(), h, 0));
  EXPECT_TRUE(elements_match(minus_zero.data(), zero.data(), h, 1e-6));
  EXPECT_TRUE(elements_match(nan.data(), nan.data(), h, 0));
  EXPECT_FALSE(elements_match(poison.data(), nan.data(), h, 1.0));
  EXPECT_FALSE(elements_match(poison.data(), one.data(), b, 1e9));
  EXPECT_EQ(bb::source::load_number(next.data(), h), 1.0009765625);
}

} // namespace

// A model run makes a buffer a page at a time: any slice of elements must be those bytes of the
// whole buffer, for every generated init and element type.
TEST(source_inputs, a_slice_of_elements_is_those_of_the_whole_buffer) {
  const char* types[] = {"float", "double", "float16", "bfloat16", "int8",  "uint8",
                         "int16", "uint16", "int32",   "uint32",   "int64", "uint64"};
  std::size_t compared = 0;
  for (const char* type : types)
    for (const char* init : {"uniform", "iota", "value", "zeros", "formula"}) {
      auto a = buffer(type, init);
      a.value = -2.75;
      a.formula = "(i * k - 7) % 301";
      const nlohmann::json params{{"k", 13}};
      const auto& t = type_named(type);
      const std::size_t count = 3000; // iota of 8-bit types wraps within it
      const auto whole = initial_contents(a, t, count, 20261121, 2, params);
      for (const auto& [first, n] : {std::pair<std::size_t, std::size_t>{0, count}, {1, 1}, {511, 1025}, {2999, 1}}) {
        std::vector<unsigned char> part(n * t.bytes, 0xab);
        bb::source::initial_elements(a, t, 20261121, 2, params, first, n, part.data());
        ASSERT_EQ(0, std::memcmp(part.data(), whole.data() + first * t.bytes, part.size()))
            << type << " " << init << " from " << first;
        ++compared;
      }
    }
  EXPECT_EQ(compared, 12u * 5 * 4);
}

// Integer elements hold a value truncated toward zero, modulo 2^bits, whatever the value (a double
// converted straight to a type that cannot hold it is undefined behaviour).
TEST(source_inputs, integers_wrap_modulo_their_width) {
  const auto stored = [](const char* type, double v) {
    const auto& t = type_named(type);
    std::vector<unsigned char> out(t.bytes);
    bb::source::store_number(out, t, 0, v);
    std::uint64_t bits = 0;
    std::memcpy(&bits, out.data(), out.size());
    return bits;
  };
  EXPECT_EQ(stored("int8", 300), 44u);
  EXPECT_EQ(stored("uint8", -2.75), 254u);
  EXPECT_EQ(stored("int16", -1), 0xffffu);
  EXPECT_EQ(stored("uint32", 4294967296.0 + 5), 5u);
  EXPECT_EQ(stored("int32", 2.9), 2u);
  EXPECT_EQ(stored("int64", -3.5), 0xfffffffffffffffdu);
  EXPECT_EQ(stored("uint64", 18446744073709551616.0 + 4096), 4096u); // 2^64 + 4096
  EXPECT_EQ(stored("uint64", 9223372036854775808.0), 0x8000000000000000u);
  EXPECT_EQ(stored("uint32", std::nan("")), 0u);
}

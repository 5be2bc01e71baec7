// Inputs written on the GPU hold, bit for bit, what the host generators give at the same positions
// (the CPU checks recompute them), and outputs read back in pieces are checked as a whole.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_fill.cuh"
#include "kernels/common/device_generate.cuh"
#include "kernels/common/readback.cuh"
#include "kernels/common/same_bytes.hpp"
#include "kernels/common/seeded.hpp"
#include "gpu_test_util.hpp"
#include "runner/launch/device.hpp"
#include "kernels/scan/sweep.hpp"

namespace {

constexpr std::size_t k_count = 1000000;
constexpr std::uint64_t k_first = 123456789; // a nonzero start: a fill of the middle of an input

template <class T> std::vector<T> copy_back(const bb::device_buffer<T>& d) {
  std::vector<T> h(d.size());
  EXPECT_EQ(cudaMemcpy(h.data(), d.get(), d.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}

template <class T> void expect_fill_matches_host() {
  bb::device_buffer<T> d(k_count);
  bb::fill_uniform_device(d.get(), k_count, 20261124, k_first);
  const auto got = copy_back(d);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < k_count; ++i) {
    const T want = static_cast<T>(bb::host::uniform_at(20261124, k_first + i));
    wrong += std::memcmp(&want, &got[i], sizeof(T)) != 0;
  }
  EXPECT_EQ(wrong, 0u);
}

struct word_gen {
  std::uint64_t seed;
  __host__ __device__ std::uint64_t operator()(std::uint64_t w) const { return bb::host::byte7_word_at(seed, w); }
};

TEST(gpu_inputs, fill_uniform_device_matches_uniform_at_for_float) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  expect_fill_matches_host<float>();
}

TEST(gpu_inputs, fill_uniform_device_matches_uniform_at_for_double) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  expect_fill_matches_host<double>();
}

TEST(gpu_inputs, generate_device_matches_the_host_generators) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  bb::device_buffer<std::uint32_t> ints(k_count);
  bb::generate_device(ints.get(), k_count, bb::scan::input_integers{99}, k_first);
  const auto got_ints = copy_back(ints);
  bb::device_buffer<std::uint64_t> words(k_count);
  bb::generate_device(words.get(), k_count, word_gen{99}, k_first);
  const auto got_words = copy_back(words);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < k_count; ++i) {
    wrong += got_ints[i] != bb::scan::integer_at(99, k_first + i);
    wrong += got_words[i] != bb::host::byte7_word_at(99, k_first + i);
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(gpu_inputs, pieces_report_every_wrong_element_and_the_first) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  bb::device_buffer<float> d(k_count);
  bb::fill_uniform_device(d.get(), k_count, 5);
  auto check = [&](std::size_t piece) {
    return bb::verify_elements(
        d.get(), k_count, [](std::size_t i, float got) { return !bb::same_bytes(got, bb::host::uniform_at(5, i)); },
        [](std::size_t i, float) { return "out[" + std::to_string(i) + "]"; }, piece);
  };
  for (const std::size_t piece : {std::size_t{0}, std::size_t{1000}, std::size_t{65537}}) {
    const auto r = check(piece);
    EXPECT_TRUE(r.ok) << piece << ": " << r.first_mismatch;
    EXPECT_EQ(r.checked, k_count);
  }
  // Two wrong elements in late pieces: both counted, the earlier one named.
  const float bad = 7.0f;
  ASSERT_EQ(cudaMemcpy(d.get() + 777777, &bad, sizeof bad, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d.get() + 654321, &bad, sizeof bad, cudaMemcpyHostToDevice), cudaSuccess);
  for (const std::size_t piece : {std::size_t{0}, std::size_t{1000}, std::size_t{65537}}) {
    const auto r = check(piece);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.mismatches, 2u) << piece;
    EXPECT_EQ(r.first_mismatch, "out[654321]") << piece;
  }
}

} // namespace

// Checks run on the GPU (common/device_check.cuh): every wrong element counted, the smallest wrong
// index found across threads and grid-stride steps, and only that element worded on the host; the
// families that use them name their first wrong element as the CPU checks did.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/common/device_buffer.cuh"
#include "kernels/common/device_check.cuh"
#include "kernels/common/device_generate.cuh"
#include "kernels/common/seeded.hpp"
#include "kernels/common/uniform.hpp"
#include "kernels/convolution/stencil.hpp"
#include "kernels/fft/family.cuh"
#include "gpu_test_util.hpp"
#include "runner/launch/device.hpp"
#include "runner/registry/registry.hpp"

namespace {

/// Element i of the test buffers: a quarter step, exact in float.
__host__ __device__ float quarter(std::size_t i) { return static_cast<float>(i % 1000) * 0.25f; }

struct quarter_gen {
  __host__ __device__ float operator()(std::uint64_t i) const { return quarter(i); }
};

struct is_quarter {
  __host__ __device__ bool operator()(std::size_t i, float got) const { return got == quarter(i); } // NaN fails
};

/// Units of element i: its own value (a tally adds them up).
struct value_is_units {
  __host__ __device__ unsigned operator()(std::size_t, std::uint32_t got) const { return got; }
};

std::string describe(std::size_t i, float got) {
  return "out[" + std::to_string(i) + "] = " + std::to_string(got) + ", expected " + std::to_string(quarter(i));
}

void put(float* d, std::size_t i, float v) {
  ASSERT_EQ(cudaMemcpy(d + i, &v, sizeof v, cudaMemcpyHostToDevice), cudaSuccess);
}

bb::verify_result check(const bb::device_buffer<float>& d) {
  return bb::verify_on_device(d.get(), d.size(), is_quarter{}, describe);
}

/// A variant's output left as poisoned, verified: what its first mismatch says.
bb::verify_result unwritten(const char* family, const char* name, const nlohmann::json& params, std::uint64_t seed) {
  const auto* v = bb::registry::instance().find_variant(family, name);
  if (v == nullptr) throw std::runtime_error(std::string(family) + "/" + name + " is not registered");
  auto p = v->make(params, seed);
  p->poison_output();
  return p->verify();
}

} // namespace

TEST(device_check, same_bytes_compares_bits_not_values) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(bb::same_bytes(nan, nan));
  EXPECT_FALSE(bb::same_bytes(0.0f, -0.0f));
  EXPECT_TRUE(bb::same_bytes(0.5, 0.5));
  EXPECT_FALSE(bb::same_bytes(float4{1, 2, 3, 4}, float4{1, 2, 3, 5}));
}

TEST(gpu_device_check, an_all_correct_buffer_is_ok) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  bb::device_buffer<float> d(1031); // not a multiple of the 256-thread block
  bb::generate_device(d.get(), d.size(), quarter_gen{});
  const auto r = check(d);
  EXPECT_TRUE(r.ok) << r.first_mismatch;
  EXPECT_EQ(r.checked, 1031u);
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_EQ(r.first_mismatch, "");
  const auto none = bb::verify_on_device(d.get(), 0, is_quarter{}, describe);
  EXPECT_TRUE(none.ok);
  EXPECT_EQ(none.checked, 0u);
}

TEST(gpu_device_check, counts_every_wrong_element_and_words_the_smallest) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  bb::device_buffer<float> d(1031);
  bb::generate_device(d.get(), d.size(), quarter_gen{});
  put(d.get(), 1030, -1.0f); // the last element, in the partial block
  put(d.get(), 700, std::numeric_limits<float>::quiet_NaN());
  put(d.get(), 3, 9.0f);
  auto r = check(d);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.checked, 1031u);
  EXPECT_EQ(r.mismatches, 3u);
  EXPECT_EQ(r.first_mismatch, "out[3] = 9.000000, expected 0.750000");
  put(d.get(), 3, quarter(3));
  r = check(d);
  EXPECT_EQ(r.mismatches, 2u);
  EXPECT_EQ(r.first_mismatch, "out[700] = nan, expected 175.000000"); // a NaN is never right
}

TEST(gpu_device_check, a_count_past_one_grid_is_covered_by_the_grid_stride) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  constexpr std::size_t k_grid = std::size_t{65536} * 256; // the most threads one check launches
  constexpr std::size_t k_count = k_grid + 1007;
  bb::device_buffer<float> d(k_count);
  bb::generate_device(d.get(), k_count, quarter_gen{});
  put(d.get(), k_count - 1, -1.0f);
  put(d.get(), k_grid + 3, -1.0f); // thread 3's second step
  put(d.get(), 20, -1.0f);         // thread 20's first
  auto r = check(d);
  EXPECT_EQ(r.checked, k_count);
  EXPECT_EQ(r.mismatches, 3u);
  EXPECT_EQ(r.first_mismatch, describe(20, -1.0f));
  put(d.get(), 20, quarter(20));
  r = check(d);
  EXPECT_EQ(r.mismatches, 2u);
  EXPECT_EQ(r.first_mismatch, describe(k_grid + 3, -1.0f));
}

TEST(gpu_device_check, a_tally_adds_the_units_each_element_reports) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  bb::device_buffer<std::uint32_t> d(300);
  ASSERT_EQ(cudaMemset(d.get(), 0, d.bytes()), cudaSuccess);
  const std::uint32_t two = 2, seven = 7;
  ASSERT_EQ(cudaMemcpy(d.get() + 299, &seven, sizeof seven, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d.get() + 5, &two, sizeof two, cudaMemcpyHostToDevice), cudaSuccess);
  const bb::device_tally t = bb::tally_on_device(d.get(), d.size(), value_is_units{});
  EXPECT_EQ(t.wrong, 9u);
  EXPECT_EQ(t.first, 5u);
  EXPECT_EQ(bb::read_element(d.get(), 299), 7u);
}

namespace {

/// Element i of the fft tests' kernel at word i (the unpadded layout).
struct fft_words {
  static constexpr int k_words = bb::fft::k_points;
  __host__ __device__ static constexpr int offset(int i) { return i; }
};

bb::device_tally check_fft(const bb::device_buffer<float2>& out, unsigned batch, std::uint64_t seed) {
  return bb::tally_with([&](bb::device_tally* tally) {
    bb::fft::check_kernel<fft_words><<<batch, bb::fft::k_threads>>>(out.get(), seed, tally);
  });
}

} // namespace

// FFTs are checked on the GPU against a double-precision transform of the regenerated input: the
// kernel's float results pass, an error far below the bound passes, and every element past it is
// counted, the smallest index first.
TEST(gpu_device_check, fft_outputs_are_checked_against_a_double_transform) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  constexpr unsigned k_batch = 5;
  constexpr std::uint64_t k_seed = 11;
  constexpr std::size_t k_count = std::size_t{k_batch} * bb::fft::k_points;
  bb::device_buffer<float2> in(k_count), out(k_count);
  bb::fill_uniform_device(reinterpret_cast<float*>(in.get()), 2 * k_count, k_seed);
  bb::fft::fft_kernel<fft_words><<<k_batch, bb::fft::k_threads>>>(in.get(), out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  bb::device_tally t = check_fft(out, k_batch, k_seed);
  EXPECT_EQ(t.wrong, 0u);
  EXPECT_EQ(t.first, ULLONG_MAX);
  EXPECT_NE(check_fft(out, k_batch, k_seed + 1).wrong, 0u); // another input's transform is not this one

  auto shift = [&](std::size_t i, float by) {
    float2 v = bb::read_element(out.get(), i);
    v.x += by;
    ASSERT_EQ(cudaMemcpy(out.get() + i, &v, sizeof v, cudaMemcpyHostToDevice), cudaSuccess);
  };
  shift(1 * 512 + 7, 1e-5f); // the bound is about 2e-3 here (||X|| about 418)
  shift(4 * 512 + 0, 1.0f);
  shift(2 * 512 + 300, -1.0f);
  t = check_fft(out, k_batch, k_seed);
  EXPECT_EQ(t.wrong, 2u);
  EXPECT_EQ(t.first, 2u * 512 + 300);
}

// The families checked on the GPU word their first wrong element as their CPU checks did.
TEST(gpu_device_check, families_word_the_first_unwritten_element) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  const std::string poison_byte = "out[0] = 255, expected " + std::to_string(bb::host::byte7_at(9, 0));
  for (const int bytes : {5, 13}) { // the tail alone; one word and a tail
    const auto r = unwritten("reference", "copy", {{"bytes", bytes}}, 9);
    EXPECT_EQ(r.checked, static_cast<std::uint64_t>(bytes));
    EXPECT_EQ(r.mismatches, static_cast<std::uint64_t>(bytes));
    EXPECT_EQ(r.first_mismatch, poison_byte) << bytes;
  }
  double sum = 0;
  for (int i = 0; i < 256; ++i) sum += bb::host::uniform_at(4, static_cast<std::uint64_t>(i));
  auto r = unwritten("reduction", "sequential", {{"n", 1000}, {"block", 256}}, 4);
  EXPECT_EQ(r.mismatches, 4u);
  EXPECT_EQ(r.first_mismatch, "partial[0] = -nan, expected " + std::to_string(sum));
  const float pixel = bb::convolution::reference_pixel_of(
      [](int y, int x) { return bb::host::uniform_at(6, static_cast<std::uint64_t>(y) * 100 + x); }, 100, 0, 0);
  r = unwritten("convolution", "padded", {{"n", 100}, {"walk", "rows"}}, 6);
  EXPECT_EQ(r.mismatches, 100u * 100u);
  EXPECT_EQ(r.first_mismatch, "out[0,0] = -nan, expected " + std::to_string(pixel));
  float in[2 * bb::fft::k_points];
  for (int i = 0; i < 2 * bb::fft::k_points; ++i) in[i] = bb::host::uniform_at(8, static_cast<std::uint64_t>(i));
  std::complex<double> X[bb::fft::k_points];
  bb::fft::reference_fft(in, X);
  r = unwritten("fft", "padded", {{"batch", 3}}, 8);
  EXPECT_EQ(r.checked, 3u * 512);
  EXPECT_EQ(r.mismatches, 3u * 512);
  EXPECT_EQ(r.first_mismatch, "fft 0 X[0] = (-nan, -nan), expected (" + std::to_string(X[0].real()) + ", " +
                                  std::to_string(X[0].imag()) + ")");
}

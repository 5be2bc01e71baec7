// Every transpose shape on the GPU: each variant, tile, block and element type reproduces the
// transposed input bit for bit at sizes with ragged edges, including n that breaks 16-byte
// alignment (padded_wide then moves the edges element by element). test_inputs_device.cu checks
// the device generator itself.
#include <gtest/gtest.h>

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "gpu_test_util.hpp"
#include "runner/launch/device.hpp"
#include "runner/registry/registry.hpp"

namespace {

struct shape {
  int tile, block_rows;
};

constexpr shape k_shapes[] = {{16, 8}, {16, 16}, {32, 8}, {32, 16}, {32, 32}, {64, 8}, {64, 16}, {64, 32}};

/// Runs one configuration after poisoning its output: "" when it verified, else the reason.
std::string verify_one(const bb::variant_info& v, const nlohmann::json& params, std::uint64_t seed) {
  std::unique_ptr<bb::problem> p;
  try {
    p = v.make(params, seed);
  } catch (const bb::unsupported_parameter&) {
    return "unsupported"; // tests/unit/test_model_plan_transpose.cpp checks which shapes are refused
  }
  p->poison_output();
  p->launch(nullptr);
  if (cudaDeviceSynchronize() != cudaSuccess) return "kernel failed";
  const auto r = p->verify();
  const auto n = params.at("n").get<std::uint64_t>();
  if (r.checked != n * n) return "checked " + std::to_string(r.checked) + " elements";
  return r.ok ? "" : r.first_mismatch + " (" + std::to_string(r.mismatches) + " wrong)";
}

/// padded_wide on an n x n double matrix, tile 64, block (32, 8).
std::unique_ptr<bb::problem> wide_double(int n) {
  const auto* v = bb::registry::instance().find_variant("transpose", "padded_wide");
  if (v == nullptr) throw std::runtime_error("transpose/padded_wide is not registered");
  return v->make({{"n", n}, {"tile", 64}, {"block_rows", 8}, {"type", "double"}}, 3);
}

} // namespace

TEST(gpu_transpose, every_shape_and_type_matches_at_ragged_sizes) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  int verified = 0;
  for (const auto* v : bb::registry::instance().variants("transpose"))
    for (const char* type : {"float", "double"})
      for (const auto& s : k_shapes)
        for (const int n : {1, 7, 100, 130, 1000, 1002}) { // 7, 130, 1002: rows not all 16-byte aligned
          const nlohmann::json params = {{"n", n}, {"tile", s.tile}, {"block_rows", s.block_rows}, {"type", type}};
          const std::string why = verify_one(*v, params, 11 + static_cast<std::uint64_t>(n));
          if (why == "unsupported") continue;
          EXPECT_EQ(why, "") << v->id() << " " << params.dump();
          ++verified;
        }
  // naive, padded, swizzled: all 8 shapes x 2 types; padded_wide: float (32, 8), (64, 8|16|32),
  // double (16, 8), (32, 8|16), (64, 8|16|32).
  EXPECT_EQ(verified, (3 * 16 + 10) * 6);
}

TEST(gpu_transpose, an_unwritten_double_output_fails_everywhere) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  // 3000 x 3000 doubles = 72 MB, checked on the GPU; nothing launched, so all NaN.
  auto p = wide_double(3000);
  p->poison_output();
  const auto r = p->verify();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 3000u * 3000u);
  EXPECT_EQ(r.first_mismatch.rfind("out[0,0] = ", 0), 0u) << r.first_mismatch;
  EXPECT_NE(r.first_mismatch.find("nan"), std::string::npos) << r.first_mismatch; // -nan: all bits set
}

TEST(gpu_transpose, bytes_moved_and_access_width_follow_the_type) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  auto p = wide_double(256);
  EXPECT_EQ(p->bytes_moved(), 2u * 256 * 256 * 8);
  EXPECT_EQ(p->smem_access_bytes(), 8);
  EXPECT_EQ(p->device_bytes(), 2u * 256 * 256 * 8);
}

// Every registered variant, at sizes that fill whole tiles and sizes that do not, must reproduce
// its family's CPU reference; a new variant is covered here with no test edit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpu_test_util.hpp"
#include "runner/launch/device.hpp"
#include "runner/launch/device_memory.hpp"
#include "runner/registry/registry.hpp"

namespace {

std::vector<const bb::variant_info*> all_variants() {
  std::vector<const bb::variant_info*> out;
  for (const auto* f : bb::registry::instance().families())
    for (const auto* v : bb::registry::instance().variants(f->name)) out.push_back(v);
  return out;
}

nlohmann::json default_params(const bb::variant_info& v) {
  nlohmann::json p = nlohmann::json::object();
  for (const auto& s : bb::registry::instance().find_family(v.family)->params) p[s.name] = s.default_value;
  return p;
}

} // namespace

TEST(gpu_variants, every_variant_matches_the_cpu_reference) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  const auto variants = all_variants();
  ASSERT_GE(variants.size(), 3u);
  for (const auto* v : variants)
    for (const int n : {1, 31, 100, 1024}) {
      auto params = default_params(*v);
      if (params.contains("n")) params["n"] = n;
      auto p = v->make(params, 42 + n);
      p->poison_output();
      p->launch(nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const auto r = p->verify();
      EXPECT_TRUE(r.ok) << v->id() << " n=" << n << ": " << r.first_mismatch;
      EXPECT_GT(r.checked, 0u);
    }
}

TEST(gpu_variants, an_output_the_kernel_never_wrote_fails_verification) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  const auto* v = bb::registry::instance().find_variant("transpose", "naive");
  ASSERT_NE(v, nullptr);
  auto p = v->make({{"n", 64}}, 7);
  p->poison_output(); // no launch: every element still holds the poison
  const auto r = p->verify();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 64u * 64u);
  EXPECT_NE(r.first_mismatch.find("out[0,0]"), std::string::npos) << r.first_mismatch;
}

TEST(gpu_variants, unsupported_size_is_refused_before_any_allocation) {
  BB_REQUIRE_GPU();
  const auto* v = bb::registry::instance().find_variant("transpose", "padded");
  ASSERT_NE(v, nullptr);
  EXPECT_THROW(v->make({{"n", 0}}, 1), bb::unsupported_parameter);
  EXPECT_THROW(v->make({{"n", 100000}}, 1), bb::unsupported_parameter);
}

// One small problem per variant: what compute-sanitizer runs over (scripts/gpu-check.sh), where
// every tool multiplies a kernel's time by tens to thousands.
// Run under compute-sanitizer by scripts/gpu-check.sh sanitize: first with a cudaMalloc of its own
// for every buffer, so memcheck sees the exact bounds of each, then from the buffer pool (the
// default), whose memory one configuration hands to the next.
TEST(gpu_variants, small_problems_for_sanitizers) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  for (const auto a : {bb::launch::allocator::driver, bb::launch::allocator::pool}) {
    bb::launch::use_allocator(a);
    for (const auto* v : all_variants()) {
      auto params = default_params(*v);
      if (params.contains("n")) params["n"] = 1000;
      if (params.contains("bytes")) params["bytes"] = 1 << 20;
      if (params.contains("batch")) params["batch"] = 8;
      auto p = v->make(params, 5);
      p->poison_output();
      p->launch(nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << v->id() << " " << bb::launch::name_of(a);
      EXPECT_TRUE(p->verify().ok) << v->id() << " " << bb::launch::name_of(a);
    }
  }
  bb::launch::use_allocator(bb::launch::allocator::pool);
}

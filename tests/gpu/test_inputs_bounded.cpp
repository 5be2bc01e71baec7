// Set-up and verification keep host memory to a few pieces whatever the problem size (issue #6),
// and the checks read back in pieces still catch an output the kernel never wrote.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include "gpu_test_util.hpp"
#include "runner/launch/device.hpp"
#include "runner/registry/registry.hpp"

namespace {

nlohmann::json small_params(const bb::variant_info& v) {
  nlohmann::json p = nlohmann::json::object();
  for (const auto& s : bb::registry::instance().find_family(v.family)->params) p[s.name] = s.default_value;
  if (p.contains("n")) p["n"] = 1000;
  if (p.contains("bytes")) p["bytes"] = (1 << 20) + 3;
  if (p.contains("batch")) p["batch"] = 8;
  return p;
}

std::uint64_t peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::uint64_t>(u.ru_maxrss) / 1024; // Linux: KiB
}

TEST(gpu_inputs, every_variant_fails_an_output_it_never_wrote) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  for (const auto* f : bb::registry::instance().families())
    for (const auto* v : bb::registry::instance().variants(f->name)) {
      auto p = v->make(small_params(*v), 3);
      p->poison_output(); // no launch: every element still holds the poison
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << v->id();
      const auto r = p->verify();
      EXPECT_FALSE(r.ok) << v->id();
      EXPECT_GT(r.mismatches, 0u) << v->id();
      EXPECT_EQ(r.mismatches, r.checked) << v->id() << ": every element is wrong";
      EXPECT_FALSE(r.first_mismatch.empty()) << v->id();
    }
}

// A 1 GiB copy and a 2^28-float reduction, once the CUDA context and the staging buffers exist:
// before, each built its 1 GiB input on the host and the copy read its 1 GiB output back whole.
TEST(gpu_inputs, a_one_gib_problem_adds_little_host_memory) {
  BB_REQUIRE_GPU();
  bb::launch::open_device(0);
  const auto& reg = bb::registry::instance();
  const auto* copy = reg.find_variant("reference", "copy");
  const auto* sum = reg.find_variant("reduction", "sequential");
  ASSERT_NE(copy, nullptr);
  ASSERT_NE(sum, nullptr);
  auto run = [](const bb::variant_info& v, const nlohmann::json& params) {
    auto p = v.make(params, 11);
    p->poison_output();
    p->launch(nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto r = p->verify();
    EXPECT_TRUE(r.ok) << v.id() << ": " << r.first_mismatch;
  };
  run(*copy, {{"bytes", 1 << 20}}); // context, modules and staging buffers: the baseline
  run(*sum, {{"n", 1 << 20}, {"block", 256}});
  const std::uint64_t before = peak_rss_mib();
  run(*copy, {{"bytes", 1ll << 30}});
  run(*sum, {{"n", 1ll << 28}, {"block", 256}});
  EXPECT_LT(peak_rss_mib() - before, 128u) << "peak RSS went from " << before << " MiB";
}

} // namespace

// The named metric sets checked against chips through the CUPTI host API, with no GPU: every name
// valid (or chip-optional where the chip lacks it) and the pass counts the docs give.
#include <gtest/gtest.h>

#include <algorithm>

#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "runner/profile/offline.hpp"

namespace m = bb::metrics;

// CUPTI opens libnvperf_host.so with RTLD_DEEPBIND, which AddressSanitizer refuses (it ends the
// process): under the asan preset these tests are skipped, and the release build runs them.
#if defined(__SANITIZE_ADDRESS__)
#define BB_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BB_SANITIZED 1
#endif
#endif
#ifdef BB_SANITIZED
#define BB_SKIP_UNDER_ASAN() \
  GTEST_SKIP() << "CUPTI's host library cannot be loaded under AddressSanitizer (RTLD_DEEPBIND)"
#else
#define BB_SKIP_UNDER_ASAN() (void)0
#endif

namespace {

/// The check, or a skip when this machine's CUPTI host API cannot start.
bool check(const std::string& chip, const std::string& set, bb::profile::offline_check& out) {
  try {
    out = bb::profile::check_offline(chip, m::find_set(set)->metrics);
    return true;
  } catch (const bb::environment_error& e) {
    std::printf("skipped: %s\n", e.what());
    return false;
  }
}

bool has(const std::vector<std::string>& v, const char* name) { return std::find(v.begin(), v.end(), name) != v.end(); }

} // namespace

TEST(profile_offline, gh100_knows_every_name_of_both_sets) {
  BB_SKIP_UNDER_ASAN();
  bb::profile::offline_check c;
  if (!check("GH100", "bank_conflicts", c)) GTEST_SKIP() << "CUPTI host API unavailable";
  EXPECT_TRUE(c.unknown.empty()) << c.unknown.front();
  EXPECT_EQ(c.known.size(), 7u);
  EXPECT_EQ(c.passes, 2u);
  ASSERT_TRUE(check("GH100", "access_kinds", c));
  EXPECT_TRUE(c.unknown.empty()) << c.unknown.front();
  EXPECT_EQ(c.known.size(), 25u);
  EXPECT_EQ(c.passes, 5u);
}

TEST(profile_offline, ga100_lacks_only_chip_optional_counters) {
  BB_SKIP_UNDER_ASAN();
  bb::profile::offline_check c;
  if (!check("GA100", "access_kinds", c)) GTEST_SKIP() << "CUPTI host API unavailable";
  for (const auto& name : c.unknown) EXPECT_TRUE(m::is_chip_optional(name)) << name;
  EXPECT_TRUE(has(c.unknown, m::k_stsm_requests));
  EXPECT_TRUE(has(c.unknown, m::k_gmma_wavefronts));
  EXPECT_TRUE(has(c.unknown, m::k_arbitration_conflicts));
  EXPECT_TRUE(has(c.known, m::k_ldsm_wavefronts));
  EXPECT_EQ(c.passes, 3u);
  ASSERT_TRUE(check("GA100", "bank_conflicts", c));
  EXPECT_EQ(c.passes, 2u);
}

TEST(profile_offline, gb100_has_no_gmma_counters) {
  BB_SKIP_UNDER_ASAN();
  bb::profile::offline_check c;
  if (!check("GB100", "access_kinds", c)) GTEST_SKIP() << "CUPTI host API unavailable";
  for (const auto& name : c.unknown) EXPECT_TRUE(m::is_chip_optional(name)) << name;
  EXPECT_TRUE(has(c.unknown, m::k_gmma_requests));
  EXPECT_TRUE(has(c.known, m::k_stsm_wavefronts));
  EXPECT_EQ(c.passes, 4u);
}

TEST(profile_offline, an_unknown_name_is_reported_not_counted) {
  BB_SKIP_UNDER_ASAN();
  bb::profile::offline_check c;
  try {
    c = bb::profile::check_offline("GH100", {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum", m::k_gpu_time});
  } catch (const bb::environment_error&) {
    GTEST_SKIP() << "CUPTI host API unavailable";
  }
  ASSERT_EQ(c.unknown.size(), 1u); // GH100 has no op_ldsm hardware counter
  EXPECT_EQ(c.known, std::vector<std::string>{m::k_gpu_time});
  EXPECT_EQ(c.passes, 1u);
}

// reference without a GPU: the copy kernel makes no shared-memory request at any size, and
// cudaMemcpyAsync has no plan (it is not our kernel).
#include <gtest/gtest.h>

#include "plan_test_util.hpp"

namespace {

TEST(reference_host, the_copy_kernel_makes_no_shared_request) {
  for (const std::int64_t bytes : {1, 17, 268435456}) {
    const auto p = bb::test::predict_of("reference", "copy", {{"bytes", bytes}});
    EXPECT_EQ(p.load.requests + p.store.requests, 0u) << bytes;
  }
  EXPECT_FALSE(bb::test::variant_of("reference", "memcpy").plan);
  EXPECT_THROW(bb::test::plan_of("reference", "copy", {{"bytes", 0}}), bb::unsupported_parameter);
}

} // namespace

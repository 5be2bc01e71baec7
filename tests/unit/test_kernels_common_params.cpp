// The families' parameter checks: one wording for a range and for a set of values.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/common/params.hpp"

namespace {

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const bb::unsupported_parameter& e) {
    return e.what();
  }
  return "accepted";
}

TEST(kernels_params, a_range_gives_the_value_or_names_both_bounds) {
  const nlohmann::json p = {{"batch", 64}, {"n", 0}, {"big", std::int64_t{1} << 40}};
  EXPECT_EQ(bb::param::in_range(p, "batch", 1, 4096), 64);
  EXPECT_EQ(bb::param::in_range(p, "batch", 64, 64), 64);
  EXPECT_EQ(refusal([&] { bb::param::in_range(p, "n", 1, 1024); }), "n = 0 is outside 1..1024");
  EXPECT_EQ(refusal([&] { bb::param::in_range(p, "big", 1, std::int64_t{1} << 31, "2^31"); }),
            "big = 1099511627776 is outside 1..2^31");
  EXPECT_THROW(bb::param::in_range(p, "missing", 1, 2), nlohmann::json::out_of_range); // a bug, not a user's value
}

TEST(kernels_params, a_set_gives_the_value_or_lists_the_choices) {
  const nlohmann::json p = {{"matrices", 3}, {"width", 8}, {"cache", "cg"}, {"walk", "diagonal"}};
  EXPECT_EQ(bb::param::one_of(p, "width", {1, 2, 4, 8, 16}), 8);
  EXPECT_EQ(bb::param::one_of(p, "cache", {"ca", "cg"}), "cg");
  EXPECT_EQ(refusal([&] { bb::param::one_of(p, "matrices", {1, 2, 4}); }), "matrices = 3 is not one of 1, 2, 4");
  EXPECT_EQ(refusal([&] {
              bb::param::one_of(p, "walk", {"rows", "columns"});
            }),
            "walk = 'diagonal' is not one of rows, columns");
}

} // namespace

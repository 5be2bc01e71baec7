// check_parameters: a variant's registered check, else its access plan, on the host.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runner/registry/param_check.hpp"

namespace {

bb::variant_info variant(const std::string& name) {
  bb::variant_info v;
  v.family = "param_check_test";
  v.name = name;
  return v;
}

TEST(registry_param_check, a_registered_check_refuses_what_the_factory_would) {
  bb::add_param_check("param_check_test/copy", [](const nlohmann::json& p) {
    if (p.at("bytes").get<std::int64_t>() > 4096) throw bb::unsupported_parameter("bytes = 8192 is outside 1..4096");
  });
  const auto v = variant("copy");
  EXPECT_TRUE(bb::check_parameters(v, {{"bytes", 1024}}));
  try {
    bb::check_parameters(v, {{"bytes", 8192}});
    FAIL() << "no unsupported_parameter";
  } catch (const bb::unsupported_parameter& e) {
    EXPECT_STREQ(e.what(), "bytes = 8192 is outside 1..4096");
  }
}

TEST(registry_param_check, without_a_check_the_plan_builder_checks) {
  auto v = variant("planned");
  v.plan = [](const nlohmann::json& p) {
    if (p.at("tile").get<int>() == 24) throw bb::unsupported_parameter("tile = 24 is not one of 16, 32, 64");
    if (p.at("tile").get<int>() == 0) throw std::logic_error("a plan that breaks the model's rules");
    return bb::model::access_plan{};
  };
  EXPECT_TRUE(bb::check_parameters(v, {{"tile", 32}}));
  EXPECT_THROW(bb::check_parameters(v, {{"tile", 24}}), bb::unsupported_parameter);
  EXPECT_TRUE(bb::check_parameters(v, {{"tile", 0}})) << "only refusals count; the model run reports broken plans";
}

TEST(registry_param_check, a_variant_with_neither_is_not_checked) {
  EXPECT_FALSE(bb::check_parameters(variant("bare"), {{"n", 1}}));
}

} // namespace

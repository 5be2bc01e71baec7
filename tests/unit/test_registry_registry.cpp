#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runner/registry/registry.hpp"

TEST(registry, families_and_variants_are_sorted_and_found) {
  bb::registry reg;
  reg.add_family({"zeta", "z", {}});
  reg.add_family({"alpha", "a", {{"n", 8, "size"}}});
  reg.add_family({"alpha", "second registration is ignored", {}});
  reg.add_variant({"alpha", "b", "", nullptr});
  reg.add_variant({"alpha", "a", "", nullptr});
  ASSERT_EQ(reg.families().size(), 2u);
  EXPECT_EQ(reg.families()[0]->name, "alpha");
  EXPECT_EQ(reg.find_family("alpha")->description, "a");
  ASSERT_EQ(reg.variants("alpha").size(), 2u);
  EXPECT_EQ(reg.variants("alpha")[0]->id(), "alpha/a");
  EXPECT_EQ(reg.find_variant("alpha", "c"), nullptr);
  EXPECT_EQ(reg.find_variant("zeta", "a"), nullptr);
}

TEST(registry, a_variant_registered_twice_is_a_programming_error) {
  bb::registry reg;
  reg.add_variant({"f", "v", "", nullptr});
  EXPECT_THROW(reg.add_variant({"f", "v", "", nullptr}), std::logic_error);
}

TEST(registry, a_default_becomes_json_of_its_own_kind) {
  const bb::family_info f{"f",
                          "",
                          {{"n", 1 << 22, ""},
                           {"big", std::int64_t{1} << 40, ""},
                           {"type", "float", ""},
                           {"scale", 0.5, ""},
                           {"on", true, ""}}};
  nlohmann::json defaults = nlohmann::json::object();
  for (const auto& p : f.params) defaults[p.name] = p.default_value;
  EXPECT_EQ(defaults.dump(), R"({"big":1099511627776,"n":4194304,"on":true,"scale":0.5,"type":"float"})");
  EXPECT_TRUE(defaults["n"].is_number_integer());
  EXPECT_EQ(f.params[0].default_value.integer(), 4194304);
  EXPECT_EQ(f.params[2].default_value.text(), "float");
  EXPECT_THROW((void)f.params[2].default_value.integer(), std::logic_error); // read as the wrong kind
  EXPECT_THROW((void)f.params[0].default_value.text(), std::logic_error);
}

#include <gtest/gtest.h>

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

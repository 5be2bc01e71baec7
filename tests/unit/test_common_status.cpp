#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "runner/common/status.hpp"

TEST(common_status, every_status_reads_back_from_its_name) {
  for (const auto s : bb::k_config_statuses) {
    const auto back = bb::config_status_named(bb::name_of(s));
    ASSERT_TRUE(back.has_value()) << bb::name_of(s);
    EXPECT_EQ(*back, s);
  }
  EXPECT_FALSE(bb::config_status_named("great").has_value());
  EXPECT_FALSE(bb::config_status_named("OK").has_value());
  EXPECT_FALSE(bb::config_status_named("").has_value());
  EXPECT_STREQ(bb::name_of(static_cast<bb::config_status>(99)), "unknown");
}

TEST(common_status, the_list_is_the_schemas_check_in_its_order) {
  std::ifstream in(std::string(BB_SOURCE_DIR) + "/schemas/store.sql");
  ASSERT_TRUE(in) << "schemas/store.sql";
  std::stringstream text;
  text << in.rdbuf();
  std::string check = "CHECK (status IN (";
  for (std::size_t i = 0; i < bb::k_config_statuses.size(); ++i)
    check += (i == 0 ? "'" : ", '") + std::string(bb::name_of(bb::k_config_statuses[i])) + "'";
  check += "))";
  EXPECT_NE(text.str().find(check), std::string::npos) << check;
}

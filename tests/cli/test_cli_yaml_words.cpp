// YAML mistakes through `validate`: exit 2 (an experiment-file error) and one line that names the
// real cause at its line, the same words as tests/data/bad/*.expected.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/cli/cli_runner.hpp"

namespace {

std::string expected_stderr(const std::string& name) {
  std::ifstream in(BB_SOURCE_DIR "/tests/data/bad/" + name + ".expected");
  std::stringstream text;
  text << in.rdbuf();
  return "tests/data/" + text.str(); // .expected names the file from tests/data
}

class cli_yaml_words : public ::testing::TestWithParam<std::string> {};

TEST_P(cli_yaml_words, validate_exits_2_with_the_cause_in_words) {
  const std::string name = GetParam();
  const bb::test::cli_result r = bb::test::run_cli("validate tests/data/bad/" + name + ".yaml");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, expected_stderr(name));
  EXPECT_EQ(r.err.find("invalid YAML"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(yaml, cli_yaml_words,
                         ::testing::Values("tab_indentation", "cr_line_endings", "control_byte", "nesting_too_deep",
                                           "alias_as_key", "tagged_scalar", "lines_not_list"));

} // namespace

// Option values a command line gets wrong: a value missing at the end, an option given twice,
// two options that exclude each other. Each is a usage error (exit 2) in bankbench's words,
// refused before anything is read or written.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace {

struct refused_value {
  std::string args;    ///< the command line
  std::string message; ///< the whole first line of stderr, after "bankbench: error: "
};

void expect_values_refused(const std::vector<refused_value>& cases) {
  for (const auto& c : cases) {
    const auto r = bb::test::run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "bankbench: error: " + c.message) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
  }
}

} // namespace

TEST(cli_option_values, a_missing_value_a_repeated_option_and_exclusive_options_are_said_in_words) {
  expect_values_refused({
      {"--db /nonexistent/x.sqlite lines --top", "--top needs a value after it"},
      {"run -n --time-limit", "--time-limit needs a value after it"},
      {"list runs --db", "--db needs a value after it"},
      {"--db /nonexistent/x.sqlite show 1 --format csv -f json", "--format is given 2 times; give it once"},
      {"--db /nonexistent/x.sqlite lines --top 3 --top 4", "--top is given 2 times; give it once"},
      {"bankmap --row 1 --col 2", "--row and --col cannot be given together; give one of them"},
  });
}

TEST(cli_option_values, lines_top_is_read_by_the_number_parser) {
  // CLI11 read --top itself: -1 passed as a huge count, 1e309 was "Could not convert".
  expect_values_refused({
      {"--db /nonexistent/x.sqlite lines --top -1", "--top must be a whole number from 0 to 1000000000, got '-1'"},
      {"--db /nonexistent/x.sqlite lines --top 1e309",
       "--top must be a whole number from 0 to 1000000000, got '1e309'"},
      {"--db /nonexistent/x.sqlite lines --top nan", "--top must be a whole number from 0 to 1000000000, got 'nan'"},
  });
}

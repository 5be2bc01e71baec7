#include <gtest/gtest.h>

#include "runner/common/error.hpp"
#include "runner/common/number.hpp"

namespace {

/// The message parse_number refuses `text` with, or "" when it takes it.
std::string refusal(const std::string& text, const bb::number_rule& rule) {
  try {
    bb::parse_number("--x", text, rule);
  } catch (const bb::usage_error& e) {
    EXPECT_EQ(e.code(), bb::exit_code::usage);
    return e.what();
  }
  return "";
}

} // namespace

TEST(common_number, reads_plain_numbers_in_range) {
  const auto seconds = bb::number_rule::real(0.001, 86400, "seconds");
  EXPECT_DOUBLE_EQ(bb::parse_number("--time-limit", "2.5", seconds), 2.5);
  EXPECT_DOUBLE_EQ(bb::parse_number("--time-limit", "1e2", seconds), 100.0);
  EXPECT_DOUBLE_EQ(bb::parse_number("--time-limit", "0.001", seconds), 0.001);
  EXPECT_EQ(bb::parse_integer("--samples", "1e3", bb::number_rule::integer(1, 100000)), 1000);
  EXPECT_EQ(bb::parse_integer("--resume", "9000000000000", bb::number_rule::integer(1, 9e15)), 9000000000000);
}

TEST(common_number, refuses_what_is_not_a_finite_number_in_words) {
  const auto seconds = bb::number_rule::real(0.001, 86400, "seconds");
  for (const char* text : {"nan", "NaN", "inf", "-inf", "", " 5", "5 ", "10s", "0x10", "1e999", "+", "1..2"})
    EXPECT_EQ(refusal(text, seconds),
              std::string("--x must be a number of seconds from 0.001 to 86400, got '") + text + "'")
        << text;
}

TEST(common_number, refuses_fractions_and_values_out_of_range) {
  const auto count = bb::number_rule::integer(1, 100000);
  EXPECT_EQ(refusal("1.5", count), "--x must be a whole number from 1 to 100000, got '1.5'");
  EXPECT_EQ(refusal("0", count), "--x must be a whole number from 1 to 100000, got '0'");
  EXPECT_EQ(refusal("100001", count), "--x must be a whole number from 1 to 100000, got '100001'");
  EXPECT_EQ(refusal("-3", bb::number_rule::integer(0)), "--x must be a whole number, 0 or more, got '-3'");
  EXPECT_EQ(refusal("0", bb::number_rule::integer(1, 9e15).said("a run id (a whole number, 1 or more)")),
            "--x must be a run id (a whole number, 1 or more), got '0'");
  EXPECT_EQ(refusal("1e308", bb::number_rule::real(0, 10)), "--x must be a number from 0 to 10, got '1e308'");
}

TEST(common_number, a_long_text_is_cut_and_bounds_are_short) {
  const std::string digits(309, '9');
  const std::string got = refusal(digits, bb::number_rule::integer(1, 4096));
  EXPECT_EQ(got, "--x must be a whole number from 1 to 4096, got '" + digits.substr(0, 40) + "...'");
  EXPECT_EQ(bb::number_text(1e6), "1000000");
  EXPECT_EQ(bb::number_text(1e-9), "1e-09");
  EXPECT_EQ(bb::number_text(0.001), "0.001");
}

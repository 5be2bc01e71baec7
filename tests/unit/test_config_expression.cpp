// Integer expressions of source variants: exact 64-bit values, errors with the position.
#include <gtest/gtest.h>

#include <limits>
#include <map>

#include "runner/config/expression.hpp"

namespace {

using bb::config::evaluate;
using bb::config::expression_error;

std::int64_t eval(const std::string& text) {
  const std::map<std::string, std::int64_t> vars{{"n", 4096}, {"tile", 32}, {"pad", 1}, {"big", std::int64_t{1} << 62}};
  return evaluate(text, [&](const std::string& name) -> std::optional<std::int64_t> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  });
}

std::string error_of(const std::string& text) {
  try {
    (void)eval(text);
  } catch (const expression_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(config_expression, arithmetic_and_precedence) {
  EXPECT_EQ(eval("n * n"), 16777216);
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("tile * (tile + pad) * 4"), 4224);
  EXPECT_EQ(eval("-7 / 2"), -3); // C's truncating division
  EXPECT_EQ(eval("-7 % 3"), -1);
  EXPECT_EQ(eval("10 - 3 - 2"), 5); // left-associative
  EXPECT_EQ(eval("- -5"), 5);
}

TEST(config_expression, functions_and_comparisons) {
  EXPECT_EQ(eval("ceil_div(n, tile)"), 128);
  EXPECT_EQ(eval("ceil_div(4097, 32)"), 129);
  EXPECT_EQ(eval("ceil_div(0, 32)"), 0);
  EXPECT_EQ(eval("min(tile, 8)"), 8);
  EXPECT_EQ(eval("max(tile, 8 * 8)"), 64);
  EXPECT_EQ(eval("tile >= 32"), 1);
  EXPECT_EQ(eval("tile < 32"), 0);
  EXPECT_EQ(eval("pad == 1"), 1);
  EXPECT_EQ(eval("pad != 1"), 0);
}

TEST(config_expression, exact_beyond_double_precision) {
  EXPECT_EQ(eval("9007199254740993"), 9007199254740993); // 2^53 + 1, not representable as a double
  EXPECT_EQ(eval("big - 1 + big"), std::numeric_limits<std::int64_t>::max());
}

TEST(config_expression, overflow_is_an_error) {
  EXPECT_EQ(error_of("big * 2"), "in 'big * 2': 64-bit integer overflow at column 5");
  EXPECT_EQ(error_of("big + big"), "in 'big + big': 64-bit integer overflow at column 5");
  EXPECT_EQ(error_of("99999999999999999999"),
            "in '99999999999999999999': the number does not fit in 64 bits at column 1");
  EXPECT_EQ(error_of("(0 - big - big) / -1"), "in '(0 - big - big) / -1': 64-bit integer overflow at column 17");
}

TEST(config_expression, errors_name_the_expression_and_position) {
  EXPECT_EQ(error_of("n * m"), "in 'n * m': unknown name 'm' at column 5");
  EXPECT_EQ(error_of("n / (tile - 32)"), "in 'n / (tile - 32)': division by zero at column 3");
  EXPECT_EQ(error_of("n % 0"), "in 'n % 0': remainder by zero at column 3");
  EXPECT_EQ(error_of("(n + 1"), "in '(n + 1': expected ')' before the end at column 7");
  EXPECT_EQ(error_of("n +"), "in 'n +': expected a number, a name or '(' before the end at column 4");
  EXPECT_EQ(error_of("n 2"), "in 'n 2': unexpected '2' at column 3");
  EXPECT_EQ(error_of("sqrt(n)"), "in 'sqrt(n)': unknown function 'sqrt' (functions: min, max, ceil_div) at column 1");
  EXPECT_EQ(error_of("min(n)"), "in 'min(n)': min takes 2 arguments, got 1 at column 1");
  EXPECT_EQ(error_of("1.5 * n"), "in '1.5 * n': integers only: unexpected '.' in a number at column 2");
  EXPECT_EQ(error_of("ceil_div(n, 0)"), "in 'ceil_div(n, 0)': ceil_div needs a positive divisor, got 0 at column 1");
  EXPECT_EQ(error_of(""), "in '': the expression is empty at column 1");
}

// Parsed once, evaluated per element (an init formula): the same values and errors as evaluate().
TEST(config_expression, a_compiled_expression_runs_with_each_names_values) {
  const bb::config::compiled_expression f("(i * 7 + i / 32) % bins - min(i, 3)");
  ASSERT_EQ(f.names(), (std::vector<std::string>{"i", "bins"}));
  for (std::int64_t i = 0; i < 100; ++i) {
    const std::int64_t values[] = {i, 32};
    ASSERT_EQ(f(values), (i * 7 + i / 32) % 32 - std::min<std::int64_t>(i, 3)) << i;
  }
  const bb::config::compiled_expression g("100 / (i - 5) + ceil_div(i, 4) + (i >= 2) - -i");
  const std::int64_t at_9[] = {9};
  EXPECT_EQ(g(at_9), 25 + 3 + 1 + 9);
  const std::int64_t at_5[] = {5};
  try {
    (void)g(at_5);
    FAIL() << "no error";
  } catch (const expression_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "in '100 / (i - 5) + ceil_div(i, 4) + (i >= 2) - -i': division by zero at column 5");
  }
  // Deeper than the machine's local stack: 40 nested additions.
  std::string deep = "i";
  for (int k = 0; k < 40; ++k) deep = "1 + (" + deep + ")";
  std::string right = "1";
  for (int k = 0; k < 40; ++k) right = "i + (" + right + ")";
  const std::int64_t two[] = {2};
  EXPECT_EQ(bb::config::compiled_expression(deep)(two), 42);
  EXPECT_EQ(bb::config::compiled_expression(right)(two), 81);
}

TEST(config_expression, names_without_evaluating) {
  EXPECT_EQ(bb::config::expression_names("ceil_div(n, tile) * tile + n"), (std::vector<std::string>{"n", "tile"}));
  EXPECT_THROW(bb::config::expression_names("n +* 2"), expression_error);
  EXPECT_NO_THROW(bb::config::expression_names("n / 0")); // only evaluation divides
}

} // namespace

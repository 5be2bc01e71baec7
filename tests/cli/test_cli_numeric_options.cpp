// Every number-taking option of every command is read by one checked parser: nan, inf, a unit
// after the number, a fraction where a count is meant and a value out of range are usage errors
// (exit 2) that say what the option takes.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace {

struct refused_number {
  std::string args;    ///< the command line
  std::string message; ///< the whole first line of stderr
};

void expect_refused(const refused_number& c) {
  const auto r = bb::test::run_cli("--db /nonexistent/x.sqlite " + c.args);
  EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "bankbench: error: " + c.message) << c.args;
  EXPECT_EQ(r.out, "") << c.args;
}

} // namespace

TEST(cli_numeric_options, run_options_refuse_nan_inf_and_out_of_range_in_words) {
  for (const auto& c : std::vector<refused_number>{
           {"run -n --time-limit nan", "--time-limit must be a number of seconds from 0.001 to 86400, got 'nan'"},
           {"run -n --time-limit 10s", "--time-limit must be a number of seconds from 0.001 to 86400, got '10s'"},
           {"run -n --min-sample-us nan",
            "--min-sample-us must be a number of microseconds from 1 to 1000000, got 'nan'"},
           {"run -n --samples 1.5", "--samples must be a whole number from 1 to 100000, got '1.5'"},
           {"run -n --placements 0", "--placements must be a whole number from 1 to 100, got '0'"},
           {"run -n --warmup inf", "--warmup must be a whole number from 0 to 100000, got 'inf'"},
           {"run -n --device -1", "--device must be a whole number from 0 to 1023, got '-1'"},
           {"run --resume 0", "--resume must be a run id (a whole number, 1 or more), got '0'"},
           {"run --resume 1e999", "--resume must be a run id (a whole number, 1 or more), got '1e999'"},
           {"run -n -j 0", "--jobs must be a whole number from 1 to 4096, got '0'"},
           {"compile -j nan", "--jobs must be a whole number from 1 to 4096, got 'nan'"},
       })
    expect_refused(c);
}

TEST(cli_numeric_options, query_and_cluster_options_refuse_bad_numbers) {
  for (const auto& c : std::vector<refused_number>{
           {"regress -b latest --min-change nan", "--min-change must be a number from 0 to 10, got 'nan'"},
           {"regress -b latest --min-effect -1", "--min-effect must be a number from 0 to 1000, got '-1'"},
           {"regress -b latest --noise-factor 0.5", "--noise-factor must be a number from 1 to 1000, got '0.5'"},
           {"regress -b latest --time-effect inf", "--time-effect must be a number from 0 to 10, got 'inf'"},
           {"regress -b latest --alpha 0", "--alpha must be a number from 1e-09 to 1, got '0'"},
           {"history naive -n -1", "--limit must be a whole number from 0 to 1000000000, got '-1'"},
           {"slurm submit --sweep s -N 0", "--tasks must be a whole number from 1 to 100000, got '0'"},
           {"slurm submit --sweep s -N 2 --throttle 1.5",
            "--throttle must be a whole number from 0 to 100000, got '1.5'"},
       })
    expect_refused(c);
}

TEST(cli_numeric_options, bankmap_refuses_negative_indices_instead_of_drawing_column_0) {
  for (const auto& c : std::vector<refused_number>{
           {"bankmap --row -3", "--row must be a whole number from 0 to 1023, got '-3'"},
           {"bankmap --col nan", "--col must be a whole number from 0 to 1023, got 'nan'"},
           {"bankmap --stride -1", "--stride must be a whole number from 0 to 1048576, got '-1'"},
           {"bankmap --rows 0", "--rows must be a whole number from 1 to 1024, got '0'"},
           {"bankmap --cols 2048", "--cols must be a whole number from 1 to 1024, got '2048'"},
           {"bankmap --pad -1", "--pad must be a whole number from 0 to 1024, got '-1'"},
           {"bankmap --swizzle nan", "--swizzle must be a whole number from 0 to 1024, got 'nan'"},
           {"bankmap --lanes 33", "--lanes must be a whole number from 1 to 32, got '33'"},
           {"bankmap --bytes 3.5", "--bytes must be 1, 2, 4, 8 or 16 bytes, got '3.5'"},
           {"bankmap --cute-swizzle 3,4,x",
            "--cute-swizzle must be three whole numbers B,M,S from 0 to 10, e.g. 3,4,3, got 'x'"},
           {"bankmap --variant transpose/naive --request -2",
            "--request must be a whole number from 0 to 1048576, got '-2'"},
       })
    expect_refused(c);
}

TEST(cli_numeric_options, numbers_in_range_still_work_in_any_plain_spelling) {
  const auto r = bb::test::run_cli("bankmap --rows 1.6e1 --row 3 --lanes 8");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "row 3 of float tile[16][32]");
  const auto big = bb::test::run_cli("run --resume " + std::string(309, '9'));
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_LT(big.err.size(), 200u) << big.err; // no 309-digit range text
}

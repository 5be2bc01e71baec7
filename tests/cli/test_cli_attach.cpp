// `bankbench attach` without a GPU: options and programs refused in words, the program's exit code
// and time limit, and a program that never uses CUDA.
#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "cli_db.hpp"
#include "cli_runner.hpp"

namespace {

using bb::test::run_cli;
using bb::test::temp_dir;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(cli_attach, options_are_refused_in_words_before_the_program_starts) {
  temp_dir tmp;
  const std::string db = "--db '" + (tmp.path / "a.sqlite").string() + "' ";
  const std::string marker = (tmp.path / "started").string();
  const std::string program = " -- sh -c 'touch " + marker + "'";
  struct refusal {
    std::string options, words;
  };
  for (const refusal& r :
       {refusal{"--kernel-name 'tile['", "--kernel-name 'tile[' is not a regular expression"},
        refusal{"--nvtx-include '@x'", "names no domain before '@'"},
        refusal{"--nvtx-include 'dom@'", "names no range"},
        refusal{"--metrics bank_conflict", "did you mean 'bank_conflicts'?"},
        refusal{"--target-processes some", "--target-processes"}, refusal{"--launch-count -1", "--launch-count"},
        refusal{"--time-limit nan", "--time-limit must be a number of seconds"}}) {
    const auto out = run_cli(db + "attach " + r.options + program);
    EXPECT_EQ(out.exit_code, 2) << r.options << "\n" << out.err;
    EXPECT_TRUE(has(out.err, r.words)) << r.options << "\n" << out.err;
    EXPECT_FALSE(std::filesystem::exists(marker)) << r.options;
  }
  const auto none = run_cli(db + "attach");
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_TRUE(has(none.err, "program")) << none.err;
  const auto missing = run_cli(db + "attach -- no_such_program_bankbench");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_TRUE(has(missing.err, "cannot start \"no_such_program_bankbench\": no such program on PATH") ||
              has(missing.err, "cannot start no_such_program_bankbench: no such program on PATH"))
      << missing.err;
  const auto folder = run_cli(db + "attach -- " + tmp.path.string());
  EXPECT_EQ(folder.exit_code, 2) << folder.err;
  EXPECT_TRUE(has(folder.err, "Is a directory")) << folder.err;
}

// The program's output and exit code are its own; a program that never initialises CUDA stores
// nothing and is said.
TEST(cli_attach, the_programs_output_and_exit_code_pass_through) {
  temp_dir tmp;
  const std::string db = (tmp.path / "a.sqlite").string();
  const auto fails = run_cli("--db '" + db + "' attach -- sh -c 'echo from the program; exit 5'");
  EXPECT_EQ(fails.exit_code, 5) << fails.err;
  EXPECT_EQ(fails.out, "from the program\n");
  const auto plain = run_cli("--db '" + db + "' attach -- true");
  EXPECT_EQ(plain.exit_code, 1) << plain.err;
  EXPECT_TRUE(has(plain.err, "no kernel launch was profiled: the program never initialised CUDA")) << plain.err;
  EXPECT_EQ(bb::test::query_text(db, "SELECT count(*) FROM runs"), "0");
}

TEST(cli_attach, the_time_limit_stops_the_program_and_its_children) {
  temp_dir tmp;
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_cli("--db '" + (tmp.path / "a.sqlite").string() +
                         "' attach --time-limit 1 -- sh -c 'sleep 60 & sleep 60; wait'");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 128 + 15) << r.err;
  EXPECT_TRUE(has(r.err, "ran past --time-limit 1 s")) << r.err;
  EXPECT_LT(s, 20.0);
}

} // namespace

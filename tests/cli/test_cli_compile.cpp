// `bankbench compile` fills the compile cache with every distinct kernel, in parallel and without a
// GPU; a kernel that does not compile is reported once and the others are cached.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "../unit/occurrences.hpp"
#include "cli_runner.hpp"

using bb::test::occurrences;
using bb::test::run_cli;
using bb::test::temp_dir;

namespace {

namespace fs = std::filesystem;

const std::string k_examples = std::string(BB_SOURCE_DIR) + "/experiments/source";
// Two good kernels and a broken one over three sizes.
const std::string k_mixed = std::string(BB_TEST_DATA) + "/source/mixed";

std::map<std::string, std::string> cache_files(const fs::path& dir) {
  std::map<std::string, std::string> files;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir)) // the kernels; manifests/ holds the include tracking's
      if (e.path().extension() == ".cubin") files[e.path().filename().string()] = bb::test::slurp(e.path());
  return files;
}

std::string with_cache(const fs::path& dir) { return "BB_CACHE_DIR='" + dir.string() + "'"; }

TEST(cli_compile, fills_the_cache_once_and_finds_every_kernel_there_the_second_time) {
  temp_dir tmp;
  const auto cold = run_cli("compile --arch sm_90 -j 2 " + k_examples, with_cache(tmp.path / "cache"));
  EXPECT_EQ(cold.exit_code, 0) << cold.err;
  EXPECT_NE(cold.out.find("transpose.yaml: 4 kernels: 4 compiled in "), std::string::npos) << cold.out;
  EXPECT_NE(cold.out.find("histogram.yaml: 2 kernels: 2 compiled in "), std::string::npos) << cold.out;
  EXPECT_NE(cold.out.find("6 kernels for sm_90 (--arch) in "), std::string::npos) << cold.out;
  EXPECT_NE(cold.out.find(" on 2 threads: 6 compiled, 0 from the cache, 0 failed; cache "), std::string::npos)
      << cold.out;
  EXPECT_EQ(cache_files(tmp.path / "cache").size(), 6u);

  const auto warm = run_cli("compile --arch sm_90 " + k_examples, with_cache(tmp.path / "cache"));
  EXPECT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_NE(warm.out.find(": 0 compiled, 6 from the cache, 0 failed"), std::string::npos) << warm.out;
  EXPECT_EQ(warm.err, ""); // a warm cache is quiet
}

TEST(cli_compile, one_thread_and_several_fill_the_same_cache) {
  temp_dir tmp;
  const auto one = run_cli("compile --arch sm_90 -j1 " + k_examples, with_cache(tmp.path / "one"));
  const auto four = run_cli("compile --arch sm_90 --jobs 4 " + k_examples, with_cache(tmp.path / "four"));
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(four.exit_code, 0) << four.err;
  EXPECT_NE(one.out.find(" on 1 thread: "), std::string::npos) << one.out;
  EXPECT_NE(four.out.find(" on 4 threads: "), std::string::npos) << four.out;
  const auto a = cache_files(tmp.path / "one");
  EXPECT_EQ(a.size(), 6u);
  EXPECT_EQ(a, cache_files(tmp.path / "four"));
  // BB_COMPILE_JOBS is the default.
  const auto env = run_cli("compile --arch sm_90 " + k_examples, with_cache(tmp.path / "one") + " BB_COMPILE_JOBS=1");
  EXPECT_NE(env.out.find(" on 1 thread: "), std::string::npos) << env.out;
}

TEST(cli_compile, a_broken_kernel_is_reported_once_and_the_good_ones_are_cached) {
  temp_dir tmp;
  const auto r = run_cli("compile --arch sm_90 " + k_mixed + "/mixed.yaml", with_cache(tmp.path / "cache"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.out.find("mixed.yaml: 3 kernels: 2 compiled in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", 0 from the cache in 0.0 ms, 1 failed\n"), std::string::npos) << r.out;
  EXPECT_EQ(cache_files(tmp.path / "cache").size(), 2u); // the good ones
  const std::string broken = k_mixed + "/broken.cu";
  EXPECT_EQ(occurrences(r.err, broken + ":3: error: identifier \"undeclared_value\" is undefined"), 1u) << r.err;
  EXPECT_NE(r.err.find("mixed.yaml:13: error: variants.bad: variant 'bad' (n=64): " + broken +
                       ": kernel 'broken' does not compile for sm_90 with nvrtc "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(the same error fails 2 more configurations: variant 'bad' (n=128), variant 'bad' (n=256))"),
            std::string::npos)
      << r.err;

  // validate takes the same path: the same one error, the same exit code.
  const auto v = run_cli("validate " + k_mixed + "/mixed.yaml", with_cache(tmp.path / "cache"));
  EXPECT_EQ(v.exit_code, 2);
  EXPECT_EQ(occurrences(v.err, broken + ":3: error: identifier \"undeclared_value\" is undefined"), 1u) << v.err;
}

TEST(cli_compile, defaults_to_the_gpu_or_sm90_and_refuses_what_it_cannot_do) {
  temp_dir tmp;
  // No GPU (CUDA sees none): sm_90, said so.
  const auto r = run_cli("compile " + k_examples + "/histogram.yaml",
                         with_cache(tmp.path / "cache") + " CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 kernels for sm_90 (no GPU; --arch chooses)"), std::string::npos) << r.out;

  const auto arch = run_cli("compile --arch hopper " + k_examples, with_cache(tmp.path / "cache"));
  EXPECT_EQ(arch.exit_code, 2);
  EXPECT_NE(arch.err.find("expected sm_XY"), std::string::npos) << arch.err;
  const auto jobs = run_cli("compile -j 0 " + k_examples, with_cache(tmp.path / "cache"));
  EXPECT_EQ(jobs.exit_code, 2);
  EXPECT_NE(jobs.err.find("--jobs"), std::string::npos) << jobs.err;
  const auto no_cache = run_cli("compile --arch sm_90 " + k_examples, "env -u HOME -u XDG_CACHE_HOME BB_CACHE_DIR=");
  EXPECT_EQ(no_cache.exit_code, 2);
  EXPECT_NE(no_cache.err.find("there is no compile cache to fill"), std::string::npos) << no_cache.err;
  const auto none = run_cli("compile experiments/transpose", with_cache(tmp.path / "cache"));
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.out.find("no source variants in "), std::string::npos) << none.out;
  EXPECT_NE(none.out.find(": nothing to compile"), std::string::npos) << none.out;
}

TEST(cli_compile, help_names_the_cache_and_the_exit_codes) {
  const auto r = run_cli("compile --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("-j,--jobs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("BB_COMPILE_JOBS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Exit codes: 0 every kernel compiled"), std::string::npos) << r.out;
}

TEST(cli_compile, skips_an_experiment_that_needs_cutlass_where_there_is_none_as_run_does) {
  temp_dir tmp;
  const auto r = run_cli("compile --arch sm_90 experiments/cute", with_cache(tmp.path / "cache") + " CUTLASS_DIR=");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: experiments/cute/ldmatrix.yaml: skipped: CUTLASS not found: "), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "no source variants in 0 experiment files (1 skipped): nothing to compile\n");
  EXPECT_TRUE(cache_files(tmp.path / "cache").empty());

  // Beside a compilable experiment, the other one's kernels are compiled and the exit code is 0.
  const auto both = run_cli("compile --arch sm_90 experiments/cute " + k_examples + "/histogram.yaml",
                            with_cache(tmp.path / "cache") + " CUTLASS_DIR=");
  EXPECT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.out.find("histogram.yaml: 2 kernels: 2 compiled in "), std::string::npos) << both.out;
  EXPECT_EQ(cache_files(tmp.path / "cache").size(), 2u);
}

} // namespace

// `bankbench run --backend model`: the whole pipeline (run -> store -> show) without a GPU, with
// the bank model's predictions where the counters would be.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <gtest/gtest.h>

#include "cli_runner.hpp"

using bb::test::run_cli;

namespace {

/// The table line of `variant` with `params`, e.g. ("naive", "n=1024").
std::string row_of(const std::string& table, const std::string& variant, const std::string& params) {
  std::size_t at = 0;
  while ((at = table.find('\n' + variant + ' ', at)) != std::string::npos) {
    const auto end = table.find('\n', at + 1);
    const std::string line = table.substr(at + 1, end - at - 1);
    if (line.find(' ' + params + ' ') != std::string::npos) return line;
    at = end;
  }
  return "";
}

/// The line's cells, split on runs of two or more spaces.
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t i = 0;
  while (i < line.size()) {
    const auto gap = line.find("  ", i);
    cells.push_back(line.substr(i, gap == std::string::npos ? std::string::npos : gap - i));
    if (gap == std::string::npos) break;
    i = line.find_first_not_of(' ', gap);
  }
  return cells;
}

} // namespace

TEST(cli_model, transpose_runs_stores_and_shows_without_a_gpu) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "model.sqlite").string();
  const auto run = run_cli("--db '" + db + "' run --backend model experiments/transpose/transpose.yaml",
                           "CUDA_VISIBLE_DEVICES=");
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out; // the file's expectations hold for the predictions
  EXPECT_NE(run.err.find("[1/9] transpose/naive block_rows=8 n=1024 tile=32 type=float  ok  ld 32.00 wf/req"),
            std::string::npos)
      << run.err;

  const auto show = run_cli("--db '" + db + "' show", "CUDA_VISIBLE_DEVICES=");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find(
                "gpu:      bank model (rules v2: 32 banks x 4 B, half-warp 8 B, quarter-warp 16 B, paired loads "
                "twice as wide; predicted, no GPU)"),
            std::string::npos)
      << show.out;
  // The predictions are the run's own numbers: no prediction column beside them, no times.
  EXPECT_NE(show.out.find("ld wf/req  ld conflicts/req"), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find("pred wf/req"), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find("median us"), std::string::npos) << show.out;
  // variant, params, status, ld req, ld wf/req, ld conflicts/req, st wf/req, st conflicts/req, expectations
  auto params = [](int n) { // the family's other parameters stay at their defaults
    return "block_rows=8 n=" + std::to_string(n) + " tile=32 type=float";
  };
  const std::vector<std::string> naive{"naive", params(1024), "ok", "32768", "32.00", "31.00", "1.00", "0.00", "pass"};
  EXPECT_EQ(cells_of(row_of(show.out, "naive", "n=1024")), naive) << show.out;
  const std::vector<std::string> padded{"padded", params(8192), "ok",   "2097152", "1.00",
                                        "0.00",   "1.00",       "0.00", "pass"};
  EXPECT_EQ(cells_of(row_of(show.out, "padded", "n=8192")), padded) << show.out;
  const std::vector<std::string> swizzled{"swizzled", params(4096), "ok",   "524288", "1.00",
                                          "0.00",     "1.00",       "0.00", "pass"};
  EXPECT_EQ(cells_of(row_of(show.out, "swizzled", "n=4096")), swizzled) << show.out;
  EXPECT_NE(show.out.find("configurations: 9 ok; expectations:"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find(" 0 failed"), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find('!'), std::string::npos) << "a prediction never disagrees with itself";

  const auto gpus = run_cli("--db '" + db + "' list gpus");
  EXPECT_NE(gpus.out.find("model-rules-2"), std::string::npos) << gpus.out;
  EXPECT_NE(gpus.out.find("model"), std::string::npos) << gpus.out;
}

TEST(cli_model, partial_tiles_are_predicted_and_refused_sizes_recorded) {
  bb::test::temp_dir tmp;
  const auto yaml = tmp.path / "partial.yaml";
  // n = 100: partial tiles, which the model answers; n = 46341: the plan refuses it as the factory does.
  std::ofstream(yaml) << "name: partial\ndescription: edges\nfamily: transpose\nvariants: [naive]\naxes:\n"
                         "  n: [100, 46341]\nmetrics: bank_conflicts\n";
  const auto db = (tmp.path / "p.sqlite").string();
  const auto run = run_cli("--db '" + db + "' run --backend model '" + yaml.string() + "'", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(run.exit_code, 1) << run.err; // a configuration did not run
  const auto show = run_cli("--db '" + db + "' show");
  const std::vector<std::string> n100{
      "naive", "block_rows=8 n=100 tile=32 type=float", "ok", "400", "25.00", "24.00", "1.00", "0.00", "-"};
  EXPECT_EQ(cells_of(row_of(show.out, "naive", "n=100")), n100) << show.out;
  EXPECT_NE(row_of(show.out, "naive", "n=46341").find("unsupported: n = 46341 is outside 1..46340"), std::string::npos)
      << show.out;
}

TEST(cli_model, the_default_suite_runs_without_a_gpu_and_notes_what_is_not_modelled) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "suite.sqlite").string();
  const auto run = run_cli("--db '" + db + "' run --backend model", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(run.exit_code, 0) << run.err; // reference/memcpy has no plan: a note, not a failure
  EXPECT_NE(run.err.find("reference/memcpy bytes=268435456  not_modelled: reference/memcpy has no access plan"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("bankbench: info: note: 2 configurations not modelled"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("counters 0.0 ms"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("ok  ld 32.00 wf/req  (predicted)"), std::string::npos) << run.err;
  // Source variants are predicted from their kernels' PTX, checked against their reference.
  EXPECT_NE(run.err.find("source/naive block_rows=8 n=1024 tile=32  ok  ld 32.00 wf/req  (predicted)"),
            std::string::npos)
      << run.err;

  const auto runs = run_cli("--db '" + db + "' list runs");
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  // the reference run: completed, nothing failed
  std::istringstream lines(runs.out);
  std::string line;
  bool seen = false;
  while (std::getline(lines, line))
    if (line.find(" reference ") != std::string::npos) {
      seen = true;
      EXPECT_NE(line.find("completed"), std::string::npos) << line;
      EXPECT_NE(line.find("bank model"), std::string::npos) << line;
    }
  EXPECT_TRUE(seen) << runs.out;

  const auto tech = run_cli("--db '" + db + "' techniques");
  ASSERT_EQ(tech.exit_code, 0) << tech.err;
  EXPECT_NE(tech.out.find("# Shared-memory bank-conflict techniques, predicted by the bank model"), std::string::npos);
  EXPECT_NE(tech.out.find("- Predicted: "), std::string::npos) << tech.out.substr(0, 2000);
  EXPECT_EQ(tech.out.find("- Measured: "), std::string::npos);
  EXPECT_EQ(tech.out.find("median µs"), std::string::npos);
  EXPECT_EQ(tech.out.find("model ld wf/req"), std::string::npos);
  EXPECT_NE(tech.out.find("**Not modelled**: the bank model cannot predict 2 of 4 configurations (no access plan, or "
                          "kernel code it cannot follow): "),
            std::string::npos);
  // The run selectors other commands take: the newest session is the same page.
  const auto latest = run_cli("--db '" + db + "' techniques latest");
  ASSERT_EQ(latest.exit_code, 0) << latest.err;
  EXPECT_NE(latest.out.find("**Not modelled**: the bank model cannot predict 2 of 4 configurations (no access plan, or "
                            "kernel code it cannot follow): "),
            std::string::npos);
  const auto none = run_cli("--db '" + db + "' techniques session:999");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("session"), std::string::npos) << none.err;

  const auto html = (tmp.path / "r.html").string();
  const auto report = run_cli("--db '" + db + "' report -o '" + html + "'");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string page = bb::test::slurp(html);
  EXPECT_NE(page.find(">0 failed expectations<"), std::string::npos) << "a not-modelled variant is no failure";
  // A chart per access kind an experiment executed: ldmatrix against its width, atomics per variant.
  EXPECT_NE(page.find("ldsm wf/req against matrices"), std::string::npos);
  EXPECT_NE(page.find("atom wf/req by variant"), std::string::npos);
  EXPECT_NE(page.find("ldgsts wf/req"), std::string::npos);
  EXPECT_NE(page.find("configurations in the newest run of each experiment: 660 ok, 2 not modelled, 4 unverified</p>"),
            std::string::npos);
  EXPECT_NE(page.find("not modelled (no access plan, or kernel code the model cannot follow; a GPU run measures it): "
                      "memcpy"),
            std::string::npos);
  EXPECT_NE(page.find("no measured run of this experiment to set the predictions against"), std::string::npos);
}

// Model runs of kernels the model cannot follow hold no counters because the model does not
// predict them, not because counters were turned off: regress says so and how to measure them.
TEST(cli_model, regress_of_kernels_the_model_cannot_follow_says_so) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "source.sqlite").string();
  for (int i = 0; i < 2; ++i) {
    const auto run = run_cli("--db '" + db + "' run --backend model tests/data/emulate/unfollowed.yaml",
                             "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" + tmp.path.string() + "/cache'");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.err.find("not_modelled: unfollowed/pmevent: block (0, 0, 0): PTX line "), std::string::npos)
        << run.err;
    EXPECT_NE(run.err.find("(tests/data/emulate/kernels.cu:19): unsupported instruction 'pmevent'"), std::string::npos)
        << run.err;
  }
  const auto r = run_cli("--db '" + db + "' regress --baseline 1 --candidate 2");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("run 2 is a bank-model run of variants the model does not predict (all 2 configurations are "
                       "not_modelled: variants without an access plan, and source kernels whose code the model cannot "
                       "follow, have no prediction; `bankbench show` gives each reason); measure them on a GPU with "
                       "`bankbench run FILE` (without --backend model) and regress those runs; nothing to judge"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("--no-counters"), std::string::npos) << r.err;
}

// A user's own kernel file, without a GPU: predicted from its code, its expectation checked, and an
// edit that brings the bank conflicts back caught by the expectation and by `regress`.
TEST(cli_model, a_users_kernel_is_predicted_and_regress_catches_an_edit) {
  bb::test::temp_dir tmp;
  for (const char* f : {"kernels.cu", "user.yaml"})
    std::filesystem::copy_file(std::string(BB_TEST_DATA) + "/emulate/" + f, tmp.path / f);
  const auto db = (tmp.path / "user.sqlite").string();
  const std::string env = "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" + tmp.path.string() + "/cache'";
  const std::string cmd = "--db '" + db + "' run --backend model '" + (tmp.path / "user.yaml").string() + "'";
  const auto before = run_cli(cmd, env);
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(before.err.find("[2/2] source/tile n=256  ok  ld 1.00 wf/req  (predicted)"), std::string::npos)
      << before.err;
  // Stored unverified: the variant has no check: to compare its emulated output with.
  EXPECT_NE(before.out.find("unverified: predicted from its PTX; outputs not checked: the variant has no check"),
            std::string::npos)
      << before.out;
  EXPECT_NE(before.out.find("expectations: 2 met, 0 failed"), std::string::npos) << before.out;

  // The padding dropped: every column read of the tile is 32-way again.
  const auto source = tmp.path / "kernels.cu";
  std::ifstream in(source);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const auto at = text.find("tile[32][32 + PAD]");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("tile[32][32 + PAD]").size(), "tile[32][32]");
  std::ofstream(source, std::ios::trunc) << text;

  const auto after = run_cli(cmd, env);
  EXPECT_EQ(after.exit_code, 1) << after.err;
  EXPECT_NE(after.out.find("expectations: 0 met, 2 failed"), std::string::npos) << after.out;
  const auto same = run_cli("--db '" + db + "' regress --baseline 1 --candidate 1");
  EXPECT_EQ(same.exit_code, 0) << same.err << same.out;
  const auto r = run_cli("--db '" + db + "' regress --baseline 1 --candidate 2");
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("regressions (4)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("user_tile   tile     n=256   ld wf/req         1         32  +3100.0%"), std::string::npos)
      << r.out;
}

// A second run of unchanged source kernels reads their predictions from the cache beside the
// compiled kernels: every stored line and the run's table are those of the run that emulated them.
TEST(cli_model, a_second_run_reads_the_cached_predictions_and_stores_the_same_rows) {
  bb::test::temp_dir tmp;
  for (const char* f : {"kernels.cu", "model.yaml"})
    std::filesystem::copy_file(std::string(BB_TEST_DATA) + "/emulate/" + f, tmp.path / f);
  const auto cache = tmp.path / "cache";
  const std::string env = "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" + cache.string() + "'";
  std::string tables[2], lines[2];
  for (int i = 0; i < 2; ++i) {
    const std::string db = "--db '" + (tmp.path / ("run" + std::to_string(i) + ".sqlite")).string() + "' ";
    const auto r = run_cli(db + "run --backend model '" + (tmp.path / "model.yaml").string() + "'", env);
    EXPECT_EQ(r.exit_code, 1) << r.err; // one wrong_result and one failed configuration, by design
    // The kernels are compiled first, on the compile servers (the model's architecture), and the
    // second run finds every one in the cache (and says nothing of it).
    if (i == 0) {
      EXPECT_NE(r.err.find(" for sm_90 in "), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(" compiled, 0 from the cache"), std::string::npos) << r.err;
    } else {
      EXPECT_EQ(r.err.find(" for sm_90 in "), std::string::npos) << r.err;
    }
    const auto at = r.out.find("variant ");
    ASSERT_NE(at, std::string::npos) << r.out;
    tables[i] = r.out.substr(at);
    const auto l = run_cli(db + "lines -n 0 -f csv", env);
    ASSERT_EQ(l.exit_code, 0) << l.err;
    lines[i] = l.out;
    if (i == 0) {
      // padded, unpadded, buggy and uneven; not pmevent (not_modelled) nor missing_scalar (failed).
      std::size_t files = 0;
      for ([[maybe_unused]] const auto& f : std::filesystem::directory_iterator(cache / "predictions")) ++files;
      EXPECT_EQ(files, 4u);
    }
  }
  EXPECT_NE(tables[0].find("configurations: 1 ok, 1 failed, 1 wrong_result, 1 not_modelled, 2 unverified"),
            std::string::npos)
      << tables[0];
  EXPECT_EQ(tables[0], tables[1]);
  EXPECT_NE(lines[0].find("source/unpadded"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0], lines[1]);
}

// A scalar declared float where the kernel takes an int has the right size and the wrong kind of
// number: validate says so at the variant's args, and the model refuses the configuration.
TEST(cli_model, a_scalar_of_the_wrong_kind_of_number_is_refused_by_validate_and_the_model) {
  bb::test::temp_dir tmp;
  const std::string env = "CUDA_VISIBLE_DEVICES= BB_CACHE_DIR='" + (tmp.path / "cache").string() + "'";
  const std::string file = "tests/data/emulate/types.yaml";
  const std::string words = "model_types/float_for_int: scalar 'n' is declared float (a floating-point number), but "
                            "parameter 3 of kernel '_Z6unevenPKfPfi' in tests/data/emulate/kernels.cu is .u32 (an "
                            "integer): its bytes would be read as the other kind of number; declare the type the "
                            "kernel takes";
  const auto v = run_cli("validate --arch sm_90 " + file, env);
  EXPECT_EQ(v.exit_code, 2) << v.err;
  EXPECT_NE(v.err.find(file + ":12:"), std::string::npos) << v.err;
  EXPECT_NE(v.err.find("variants.float_for_int.args: " + words), std::string::npos) << v.err;

  const auto r = run_cli("--db '" + (tmp.path / "m.sqlite").string() + "' run --backend model " + file, env);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("failed"), std::string::npos) << r.out;
}

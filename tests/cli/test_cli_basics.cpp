#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using bb::test::run_cli;

TEST(cli, help_lists_every_command_and_the_exit_codes) {
  const auto r = run_cli("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* c : {"run", "validate", "list", "show"}) EXPECT_NE(r.out.find(c), std::string::npos) << c;
  EXPECT_NE(r.out.find("Exit codes"), std::string::npos);
}

TEST(cli, mistyped_command_suggests_the_right_one) {
  const auto r = run_cli("rnu experiments");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'rnu'; did you mean 'run'?"), std::string::npos) << r.err;
}

TEST(cli, version_prints_the_version) {
  const auto r = run_cli("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("bankbench 0."), std::string::npos) << r.out;
}

TEST(cli, list_families_shows_the_transpose_variants) {
  const auto r = run_cli("list families");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* v : {"transpose/naive", "transpose/padded", "transpose/swizzled"})
    EXPECT_NE(r.out.find(v), std::string::npos) << v;
}

TEST(cli, list_families_for_programs_is_one_record_per_variant_with_the_defaults) {
  const auto r = run_cli("list families -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out);
  int transpose = 0;
  for (const auto& row : rows)
    if (row["family"] == "transpose") {
      ++transpose;
      EXPECT_EQ(row["param_defaults"]["type"], "float") << row.dump();
    }
  EXPECT_GE(transpose, 3);
  const auto text = run_cli("list families");
  std::size_t variants = 0;
  for (const auto& row : rows)
    if (text.out.find(row["variant"].get<std::string>()) != std::string::npos) ++variants;
  EXPECT_EQ(variants, rows.size()); // the same catalogue as the text listing
  const auto csv = run_cli("list metrics -f csv");
  EXPECT_EQ(csv.out.rfind("set,metric,kind\nbank_conflicts,", 0), 0U) << csv.out;
}

TEST(cli, list_metrics_names_the_bank_conflicts_set) {
  const auto r = run_cli("list metrics");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("bank_conflicts"), std::string::npos);
  EXPECT_NE(r.out.find("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), std::string::npos);
  EXPECT_NE(r.out.find("load_wavefronts_per_request"), std::string::npos);
  EXPECT_NE(r.out.find("ldsm_wavefronts_per_request"), std::string::npos);
  EXPECT_NE(r.out.find("atom_excess_wavefronts_per_request"), std::string::npos);
}

TEST(cli, list_metrics_says_which_counters_a_chip_lacks) {
  const auto r = run_cli("list metrics");
  EXPECT_EQ(r.exit_code, 0);
  if (r.out.find("bank_conflicts on GH100: pass count unavailable") != std::string::npos)
    GTEST_SKIP() << "CUPTI host API unavailable here";
  EXPECT_NE(r.out.find("bank_conflicts on GH100: 2 pass(es), every counter present"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("access_kinds on GH100: 5 pass(es), every counter present"), std::string::npos);
  EXPECT_NE(r.out.find("access_kinds on GA100: 3 pass(es), not on this chip (no value, not 0): 9"), std::string::npos);
  EXPECT_NE(r.out.find("  absent: sm__sass_inst_executed_op_shared_gmma.sum"), std::string::npos);
}

TEST(cli, validate_accepts_the_shipped_experiments_without_a_gpu) {
  const auto r = run_cli("validate experiments", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("experiments/transpose/transpose.yaml: ok (transpose, 9 configurations"), std::string::npos)
      << r.out;
}

TEST(cli, dry_run_lists_configurations_without_a_gpu) {
  const auto r = run_cli("run --dry-run experiments/transpose/transpose.yaml", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("transpose/naive block_rows=8 n=1024 tile=32 type=float"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("transpose/swizzled block_rows=8 n=8192 tile=32 type=float"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 9);
}

TEST(cli, run_without_a_gpu_fails_with_one_clear_line_and_writes_nothing) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "r.sqlite").string();
  const auto r = run_cli("--db '" + db + "' run experiments/transpose/transpose.yaml", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  // CI has no driver at all; a GPU machine with CUDA_VISIBLE_DEVICES= has a driver but no device.
  const bool explained = r.err.find("no CUDA device is visible") != std::string::npos ||
                         r.err.find("no NVIDIA driver on this machine") != std::string::npos;
  EXPECT_TRUE(explained) << r.err;
  EXPECT_NE(r.err.find("to go on without a GPU, `bankbench run --backend model`"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(cli, missing_experiment_file_is_a_usage_error) {
  const auto r = run_cli("validate experiments/nope.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such experiment file or folder: experiments/nope.yaml"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" (relative to " BB_SOURCE_DIR "; run bankbench from the checkout, or name the files)"),
            std::string::npos)
      << r.err;
}

TEST(cli, show_without_a_database_says_how_to_make_one) {
  bb::test::temp_dir tmp;
  const auto r = run_cli("--db '" + (tmp.path / "none.sqlite").string() + "' show");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("bankbench run"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(tmp.path / "none.sqlite"));
}

// A sweep must select something: exclusions that drop every configuration, or an exclude entry
// that no configuration can match under zip, are refused by validate and run alike (exit 2, file,
// line, key and fix), before anything is stored.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_db.hpp"

namespace {

std::string write(const std::filesystem::path& dir, const std::string& name, const std::string& exclude) {
  const auto path = dir / (name + ".yaml");
  std::ofstream(path) << "name: " << name
                      << "\ndescription: d\nfamily: transpose\nvariants: [naive, padded]\naxes:\n"
                         "  n: [1024, 2048]\n  block_rows: [8, 16]\nzip:\n  - [n, block_rows]\nexclude:\n"
                      << exclude;
  return path.string();
}

} // namespace

TEST(cli_sweep_selection, a_run_whose_exclusions_drop_everything_stores_nothing) {
  bb::test::temp_dir tmp;
  const auto file = write(tmp.path, "all", "  - variant: naive\n  - variant: padded\n");
  const auto db = (tmp.path / "x.sqlite").string();
  const auto r = bb::test::run_cli("--db '" + db + "' run --backend model '" + file + "'", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, file +
                       ":10:1: error: exclude: the exclude entries drop every configuration of the sweep: it selects "
                       "nothing to run (remove or narrow the entries that match everything: an entry with only "
                       "`variant`, or only one axis, drops all of that variant or value)\n");
  EXPECT_FALSE(std::filesystem::exists(db)) << "a refused file must store no run";
}

TEST(cli_sweep_selection, an_exclude_entry_across_zip_positions_is_refused_and_one_position_is_not) {
  bb::test::temp_dir tmp;
  const auto never = write(tmp.path, "never", "  - n: 2048\n    block_rows: 8\n");
  const auto r = bb::test::run_cli("validate '" + never + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, never + ":11:5: error: exclude[0]: this entry can never match: n=2048 and block_rows=8 are zipped, "
                           "and n=2048 goes with block_rows=16 (give the values of one position of the zip group, "
                           "such as n=2048 with block_rows=16, or only one of its axes)\n");
  const auto fine = write(tmp.path, "fine", "  - n: 2048\n    block_rows: 16\n    variant: naive\n");
  const auto ok = bb::test::run_cli("validate '" + fine + "'");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, fine + ": ok (fine, 3 configurations, 0 expectations)\n");
}

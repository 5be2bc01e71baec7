// Experiment files whose names hold a newline or a terminal escape: every message that names one
// shows it escaped (runner/common/path_text.hpp), so it can neither forge a line nor drive the
// terminal, and the exit code is the one README's table gives.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/cli/cli_runner.hpp"

namespace fs = std::filesystem;

namespace {

// The raw name in `dir` and how messages show it.
struct hostile_name {
  std::string raw, shown;
};

hostile_name name_in(const fs::path& dir, const std::string& stem) {
  return {(dir / (stem + "\nx\x1b[31m.yaml")).string(), "\"" + dir.string() + "/" + stem + "\\nx\\x1b[31m.yaml\""};
}

bool has_escape_byte(const std::string& text) { return text.find('\x1b') != std::string::npos; }

} // namespace

TEST(cli_experiment_file_names, a_diagnostic_in_a_file_so_named_shows_the_name_escaped) {
  bb::test::temp_dir tmp;
  const auto name = name_in(tmp.path, "bad");
  fs::copy_file(BB_SOURCE_DIR "/tests/data/bad/exclude_unknown_key.yaml", name.raw);
  const auto r = bb::test::run_cli("validate '" + name.raw + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, name.shown + ":10:5: error: exclude[0].tiel: unknown key 'tiel' (did you mean 'tile'?)\n");
  EXPECT_FALSE(has_escape_byte(r.err));
}

TEST(cli_experiment_file_names, a_missing_file_so_named_is_named_escaped) {
  bb::test::temp_dir tmp;
  const auto name = name_in(tmp.path, "missing");
  const auto r = bb::test::run_cli("validate '" + name.raw + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "bankbench: error: no such experiment file or folder: " + name.shown + "\n");
  EXPECT_FALSE(has_escape_byte(r.err));
}

TEST(cli_experiment_file_names, a_fifo_and_an_empty_folder_so_named_are_named_escaped) {
  bb::test::temp_dir tmp;
  const auto fifo = name_in(tmp.path, "pipe");
  ASSERT_EQ(::mkfifo(fifo.raw.c_str(), 0600), 0);
  const auto piped = bb::test::run_cli("validate '" + fifo.raw + "'");
  EXPECT_EQ(piped.exit_code, 2) << piped.err;
  EXPECT_EQ(piped.err.rfind(fifo.shown + ": error: a FIFO (named pipe), not an experiment file", 0), 0u) << piped.err;
  EXPECT_FALSE(has_escape_byte(piped.err));

  const auto folder = name_in(tmp.path, "folder");
  fs::create_directory(folder.raw);
  const auto empty = bb::test::run_cli("validate '" + folder.raw + "'");
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
  EXPECT_EQ(empty.err, "bankbench: error: no experiment files (*.yaml) under " + folder.shown + "\n");
}

TEST(cli_experiment_file_names, the_summary_of_a_valid_file_so_named_shows_the_name_escaped) {
  bb::test::temp_dir tmp;
  const auto name = name_in(tmp.path, "good");
  fs::copy_file(BB_SOURCE_DIR "/experiments/transpose/transpose.yaml", name.raw);
  const auto r = bb::test::run_cli("validate '" + name.raw + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(name.shown + ": ok (transpose, ", 0), 0u) << r.out;
  EXPECT_FALSE(has_escape_byte(r.out));
}

// A database or baseline file so named: the query commands' messages show it escaped too.
TEST(cli_experiment_file_names, a_database_and_a_baseline_file_so_named_are_named_escaped) {
  bb::test::temp_dir tmp;
  const std::string db = (tmp.path / "db\nx\x1b[31m.sqlite").string();
  fs::copy_file(BB_SOURCE_DIR "/tests/data/lines/h100-transpose-regression.sqlite", db);
  const auto show = bb::test::run_cli("--db '" + db + "' show 999");
  EXPECT_EQ(show.exit_code, 2) << show.err;
  EXPECT_NE(show.err.find("no run 999 in \"" + tmp.path.string() + "/db\\nx\\x1b[31m.sqlite\""), std::string::npos)
      << show.err;
  EXPECT_FALSE(has_escape_byte(show.err));
  const std::string file = (tmp.path / "base\nx\x1b[31m.json").string();
  { std::ofstream(file) << "not json"; }
  const auto import = bb::test::run_cli("--db '" + db + "' baseline import '" + file + "'");
  EXPECT_EQ(import.exit_code, 2) << import.err;
  EXPECT_NE(import.err.find("base\\nx\\x1b[31m.json\": not JSON"), std::string::npos) << import.err;
  EXPECT_FALSE(has_escape_byte(import.err));
}

// Databases and files named on the command line: each refusal says what the file is, keeps the
// OS's reason, shows the name escaped, and exits with the code README's table gives.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <initializer_list>

#include "cli_db.hpp"
#include "runner/common/host_info.hpp"

namespace fs = std::filesystem;
using bb::test::exec_sql;
using bb::test::query_text;

namespace {

std::string model_database(const fs::path& dir) {
  const auto db = (dir / "d.sqlite").string();
  const auto r = bb::test::run_cli("-q --db '" + db + "' run --backend model experiments/transpose/transpose.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return db;
}

/// Each command on `db`, and a merge of it, exits 4 with `expected` as its whole standard error.
void expect_every_command_refused(const std::string& db, std::initializer_list<const char*> commands,
                                  const fs::path& tmp, const std::string& expected) {
  for (const std::string args : commands) {
    const auto r = bb::test::run_cli("-q --db '" + db + "' " + args);
    EXPECT_EQ(r.exit_code, 4) << args << "\n" << r.err;
    EXPECT_EQ(r.err, expected) << args;
  }
  const auto merged = bb::test::run_cli("merge '" + db + "' --into '" + (tmp / "m.sqlite").string() + "'");
  EXPECT_EQ(merged.exit_code, 4) << merged.err;
  EXPECT_EQ(merged.err, expected);
}

} // namespace

TEST(cli_databases_and_files, a_database_whose_schema_version_was_reset_is_refused_unchanged) {
  bb::test::temp_dir tmp;
  const auto db = model_database(tmp.path);
  exec_sql(db, "PRAGMA user_version = 0");
  const auto before = bb::test::slurp(db);
  const std::string expected = "bankbench: error: " + db +
                               " looks like a bankbench database whose schema version was reset (user_version 0); "
                               "it cannot be upgraded safely: restore it or use another --db\n";
  expect_every_command_refused(db, {"run --backend model experiments/transpose/transpose.yaml", "list runs", "export"},
                               tmp.path, expected);
  EXPECT_EQ(bb::test::slurp(db), before);
}

// A table dropped by hand: every command refuses the file, naming the table, and a run leaves no
// empty run behind (it stored an interrupted run with nothing in it and offered to resume it).
TEST(cli_databases_and_files, a_database_that_lost_a_table_is_refused_naming_it) {
  bb::test::temp_dir tmp;
  const auto db = model_database(tmp.path);
  exec_sql(db, "DROP TABLE metrics");
  const std::string expected = "bankbench: error: " + db +
                               ": the database lacks its table(s) metrics (dropped, or a damaged copy); bankbench "
                               "cannot use it. Use another --db, or restore the file from a copy\n";
  expect_every_command_refused(db, {"run --backend model experiments/transpose/transpose.yaml", "show", "export"},
                               tmp.path, expected);
  EXPECT_EQ(query_text(db, "SELECT count(*) FROM runs"), "1");
}

TEST(cli_databases_and_files, a_merge_source_that_is_not_a_regular_file_is_named_for_what_it_is) {
  bb::test::temp_dir tmp;
  const auto fifo = (tmp.path / "p.sqlite").string(), folder = (tmp.path / "f.sqlite").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_directory(folder);
  const auto into = (tmp.path / "into.sqlite").string();
  const auto missing = (tmp.path / "missing.sqlite").string();
  const std::pair<std::string, std::string> cases[] = {{fifo, fifo + " is a FIFO, not a database file"},
                                                       {folder, folder + " is a folder, not a database file"},
                                                       {missing, "no database at " + missing},
                                                       {"/dev/null",
                                                        "/dev/null is a character device, not a database file"}};
  for (const auto& [source, words] : cases) {
    const auto r = bb::test::run_cli("merge '" + source + "' --into '" + into + "'");
    EXPECT_EQ(r.exit_code, 4) << source << "\n" << r.err;
    EXPECT_EQ(r.err, "bankbench: error: " + words + "\n");
  }
  EXPECT_FALSE(fs::exists(into));
}

TEST(cli_databases_and_files, a_name_too_long_keeps_the_reason_of_the_os) {
  bb::test::temp_dir tmp;
  const auto db = model_database(tmp.path);
  const auto long_name = (tmp.path / (std::string(300, 'x') + ".sqlite")).string();
  const auto created = bb::test::run_cli("-q --db '" + long_name +
                                         "' run --backend model "
                                         "experiments/transpose/transpose.yaml");
  EXPECT_EQ(created.exit_code, 4) << created.err;
  EXPECT_EQ(created.err, "bankbench: error: cannot create the database " + long_name + ": File name too long\n");
  const auto listed = bb::test::run_cli("--db '" + long_name + "' list runs");
  EXPECT_EQ(listed.exit_code, 4) << listed.err;
  EXPECT_EQ(listed.err, "bankbench: error: cannot open the database " + long_name + ": File name too long\n");
  const auto report = bb::test::run_cli("-q --db '" + db + "' report -o '" + long_name + ".html'");
  EXPECT_EQ(report.exit_code, 6) << report.err;
  EXPECT_NE(report.err.find("File name too long"), std::string::npos) << report.err;
}

TEST(cli_databases_and_files, names_with_a_newline_or_a_terminal_escape_are_shown_escaped) {
  bb::test::temp_dir tmp;
  const auto raw = (tmp.path / "a\nb\x1b[31m.sqlite").string();
  const auto shown = "\"" + tmp.path.string() + "/a\\nb\\x1b[31m.sqlite\"";
  const auto listed = bb::test::run_cli("--db '" + raw + "' list runs");
  EXPECT_EQ(listed.exit_code, 4) << listed.err;
  EXPECT_EQ(listed.err, "bankbench: error: no database at " + shown + "; run `bankbench run` first\n");
}

TEST(cli_databases_and_files, a_second_resume_of_a_run_being_resumed_is_refused) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "r.sqlite").string();
  const auto exp = bb::test::sweep_experiment(tmp.path, "sweep", 3000);
  {
    const bb::test::background_run first(tmp.path, "-q --db '" + db + "' run --backend model '" + exp + "'");
    ASSERT_GE(first.wait_for_rows(db, 100), 100);
    ::kill(first.pid, SIGINT);
    ASSERT_EQ(first.exit_code(), 130) << first.err();
  }
  const auto stored = std::stoi(query_text(db, "select count(*) from configurations"));
  fs::create_directory(tmp.path / "second");
  const bb::test::background_run resuming(tmp.path / "second", "-q --db '" + db + "' run --backend model --resume 1");
  ASSERT_GT(resuming.wait_for_rows(db, stored + 50), stored);
  const auto second = bb::test::run_cli("-q --db '" + db + "' run --backend model --resume 1");
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_EQ(second.err, "bankbench: error: --resume 1: the run is still being written by process " +
                            std::to_string(resuming.pid) + " on this host; wait for it or stop it (kill -TERM " +
                            std::to_string(resuming.pid) + ") first; the run is left as it is\n");
  EXPECT_EQ(resuming.exit_code(60), 0) << resuming.err();
  EXPECT_EQ(query_text(db, "select count(*) from configurations"), "9000");
  EXPECT_EQ(query_text(db, "select status from runs where id = 1"), "completed");
}

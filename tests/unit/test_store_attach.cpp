// Schema version 9: runs of `bankbench attach` (kind, working directory, program exit, note),
// written, read back, brought forward from version 8 and merged.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "../data/results/test_helpers.hpp"
#include "runner/common/error.hpp"
#include "runner/store/database.hpp"
#include "runner/store/merge.hpp"
#include "runner/store/schema.hpp"

namespace {

using namespace bb::test::results;
using bb::store::database;

// SQLite's message for `sql` on a read-write connection; "" when it runs.
std::string error_of(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  const std::string error = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK ? ""
                                                                                                  : sqlite3_errmsg(db);
  sqlite3_close(db);
  return error;
}

std::int64_t some_gpu(database& db) {
  bb::store::gpu_record g;
  g.uuid = "GPU-attach";
  g.name = "NVIDIA H100 80GB HBM3";
  g.cc_major = 9;
  return db.upsert_gpu(g);
}

bb::store::run_record attach_run(const std::string& started_at) {
  bb::store::run_record r;
  r.started_at = started_at;
  r.bankbench_version = "0.1.0";
  r.experiment_name = "train";
  r.experiment_path = "/opt/app/bin/train";
  r.experiment_text = R"({"argv":["train","--epochs","1"]})";
  r.experiment_sha256 = "aa";
  r.command_line = "bankbench attach -- train --epochs 1";
  r.kind = "attach";
  r.working_directory = "/home/lab/app";
  return r;
}

bb::store::configuration_record launch(int seq) {
  bb::store::configuration_record c;
  c.seq = seq;
  c.variant = "void scale<float>(float*, int)";
  c.family = "attach";
  c.params_json = R"({"block":[256,1,1],"grid":[64,1,1],"launch":)" + std::to_string(seq) + R"(,"smem":0})";
  c.launches = {{0, {{"load_wavefronts_per_request", "ratio", 2.0, true}}}};
  return c;
}

TEST(store_attach, a_new_database_is_version_9_with_the_attach_columns) {
  temp_folder tmp;
  const std::string path = tmp.file("new.sqlite");
  { auto db = database::open(path); }
  EXPECT_EQ(bb::store::schema::k_version, 9);
  EXPECT_EQ(scalar(path, "PRAGMA user_version"), "9");
  EXPECT_EQ(scalar(path, "SELECT group_concat(name || ':' || type || ':' || \"notnull\" || ':' || "
                         "ifnull(dflt_value, '-'), ',') FROM pragma_table_info('runs') "
                         "WHERE cid > (SELECT cid FROM pragma_table_info('runs') WHERE name = 'shard')"),
            "kind:TEXT:1:'run',working_directory:TEXT:0:-,program_exit:INTEGER:0:-,note:TEXT:0:-");
  // The check admits the two kinds and nothing else.
  exec(path, R"(
    INSERT INTO gpus (uuid, name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, sm_clock_max_mhz,
                      mem_clock_max_mhz, cuda_driver_version, cuda_runtime_version, first_seen_at)
      VALUES ('GPU-1', 'g', 9, 0, 1, 1, 1, 1, 1, 1, 1, 't');
    INSERT INTO runs (gpu_id, started_at, bankbench_version, experiment_name, experiment_path, experiment_text,
                      experiment_sha256, command_line, metrics_json, seed, warmup, samples)
      VALUES (1, 't', '0.1.0', 'e', 'p', 't', 's', 'c', '[]', 0, 0, 0);)");
  EXPECT_EQ(scalar(path, "SELECT kind || ifnull(program_exit, '/NULL') FROM runs"), "run/NULL");
  EXPECT_EQ(error_of(path, "UPDATE runs SET kind = 'replay'"), "CHECK constraint failed: kind IN ('run', 'attach')");
  EXPECT_EQ(scalar(path, "SELECT kind FROM runs"), "run");
}

TEST(store_attach, begin_run_and_finish_attach_round_trip) {
  temp_folder tmp;
  auto db = database::open(tmp.file("a.sqlite"));
  const auto gpu = some_gpu(db);
  const auto id = db.begin_run(gpu, attach_run("2026-11-21T08:30:12.123Z"));
  db.add_configuration(id, launch(0));
  {
    const auto d = db.run(id);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->run.kind, "attach");
    EXPECT_EQ(d->run.working_directory, "/home/lab/app");
    EXPECT_EQ(d->status, bb::run_status::running);
    EXPECT_FALSE(d->program_exit.has_value()); // NULL while the program runs
    EXPECT_EQ(d->note, "");
  }
  db.finish_attach(id, bb::run_status::failed, 3, "program exited with code 3");
  const auto d = db.run(id);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->status, bb::run_status::failed);
  EXPECT_FALSE(d->finished_at.empty());
  ASSERT_TRUE(d->program_exit.has_value());
  EXPECT_EQ(*d->program_exit, 3);
  EXPECT_EQ(d->note, "program exited with code 3");
  const auto rows = db.runs();
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].run.kind, "attach");
  EXPECT_EQ(rows[0].configurations, 1);
}

TEST(store_attach, a_plain_run_and_an_attach_without_exit_or_note_store_null) {
  temp_folder tmp;
  const std::string path = tmp.file("a.sqlite");
  auto db = database::open(path);
  const auto gpu = some_gpu(db);
  bb::store::run_record plain = attach_run("2026-11-21T08:00:00.000Z");
  plain.kind = "run";
  plain.working_directory.clear();
  const auto run = db.begin_run(gpu, plain);
  db.finish_run(run, bb::run_status::completed);
  const auto stopped = db.begin_run(gpu, attach_run("2026-11-21T09:00:00.000Z"));
  db.finish_attach(stopped, bb::run_status::interrupted, std::nullopt, "");
  EXPECT_EQ(scalar(path, "SELECT group_concat(kind || ' ' || ifnull(working_directory, 'NULL') || ' ' || "
                         "ifnull(program_exit, 'NULL') || ' ' || ifnull(note, 'NULL') || ' ' || status, '; ') "
                         "FROM (SELECT * FROM runs ORDER BY id)"),
            "run NULL NULL NULL completed; attach /home/lab/app NULL NULL interrupted");
  EXPECT_EQ(db.run(run)->run.kind, "run");
  // A signal's exit code is stored as the shell reports it.
  db.finish_attach(stopped, bb::run_status::interrupted, 128 + 15, "stopped at the time limit (30 s)");
  EXPECT_EQ(db.run(stopped)->program_exit, 143);
  try {
    db.finish_attach(99, bb::run_status::completed, 0, "");
    FAIL() << "no store_error";
  } catch (const bb::store_error& e) {
    EXPECT_NE(std::string(e.what()).find("recording the end of run 99 (completed): no such run"), std::string::npos)
        << e.what();
  }
}

TEST(store_attach, finish_attach_writes_nothing_once_the_file_is_gone) {
  temp_folder tmp;
  const std::string path = tmp.file("a.sqlite");
  auto db = database::open(path);
  const auto id = db.begin_run(some_gpu(db), attach_run("2026-11-21T08:30:12.123Z"));
  std::filesystem::remove(path);
  try {
    db.finish_attach(id, bb::run_status::completed, 0, "");
    FAIL() << "no store_error";
  } catch (const bb::store_error& e) {
    EXPECT_NE(std::string(e.what()).find("the database file was deleted or moved"), std::string::npos) << e.what();
  }
}

// tests/data/lines/h100-transpose-regression.sqlite was written at schema version 8.
TEST(store_attach, a_version_8_database_migrates_and_its_runs_read_kind_run) {
  temp_folder tmp;
  const std::string path = tmp.file("v8.sqlite");
  std::filesystem::copy_file(std::string(BB_TEST_DATA) + "/lines/h100-transpose-regression.sqlite", path);
  ASSERT_EQ(scalar(path, "PRAGMA user_version"), "8");
  const char* counted = "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM configurations) || ' ' || "
                        "(SELECT count(*) FROM metrics) || ' ' || (SELECT count(*) FROM line_counters)";
  const std::string before = scalar(path, counted);
  {
    // Read as it is, version 8 has no kind column: its runs read as runs of `bankbench run`.
    const auto old = database::open_read_only(path);
    EXPECT_EQ(old.user_version(), 8);
    const auto runs = old.runs();
    ASSERT_FALSE(runs.empty());
    for (const auto& r : runs) {
      EXPECT_EQ(r.run.kind, "run");
      EXPECT_FALSE(r.program_exit.has_value());
    }
  }
  EXPECT_EQ(scalar(path, "PRAGMA user_version"), "8");
  auto db = database::open(path);
  EXPECT_EQ(db.user_version(), 9);
  EXPECT_EQ(scalar(path, counted), before);
  EXPECT_EQ(scalar(path, "SELECT group_concat(DISTINCT kind) FROM runs"), "run");
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM runs WHERE working_directory IS NOT NULL OR program_exit IS NOT NULL "
                         "OR note IS NOT NULL"),
            "0");
  EXPECT_EQ(db.run(1)->run.kind, "run");
  EXPECT_EQ(scalar(path, "PRAGMA integrity_check"), "ok");
  // The migrated file takes attach runs.
  const auto id = db.begin_run(some_gpu(db), attach_run("2026-11-21T08:30:12.123Z"));
  db.finish_attach(id, bb::run_status::completed, 0, "program exited with code 0");
  EXPECT_EQ(db.run(id)->note, "program exited with code 0");
}

class store_attach_merge : public ::testing::TestWithParam<bb::store::merge_method> {};

TEST_P(store_attach_merge, an_attach_run_keeps_its_four_columns) {
  temp_folder tmp;
  std::int64_t id = 0;
  {
    auto source = database::open(tmp.file("lab.sqlite"));
    id = source.begin_run(some_gpu(source), attach_run("2026-11-21T08:30:12.123Z"));
    source.add_configuration(id, launch(0));
    source.add_configuration(id, launch(1));
    source.finish_attach(id, bb::run_status::failed, 134, "program ended by signal 6 (SIGABRT)");
  }
  auto into = database::open(tmp.file("all.sqlite"));
  const auto counts = bb::store::merge_database(into, database::open_read_only(tmp.file("lab.sqlite")), GetParam());
  EXPECT_EQ(counts.runs_added, 1);
  EXPECT_EQ(counts.configurations_added, 2);
  const auto runs = into.runs();
  ASSERT_EQ(runs.size(), 1U);
  const auto& r = runs[0];
  EXPECT_EQ(r.run.kind, "attach");
  EXPECT_EQ(r.run.working_directory, "/home/lab/app");
  EXPECT_EQ(r.program_exit, 134);
  EXPECT_EQ(r.note, "program ended by signal 6 (SIGABRT)");
  EXPECT_EQ(r.status, bb::run_status::failed);
}

TEST_P(store_attach_merge, a_copy_taken_while_the_program_ran_gets_how_it_ended) {
  temp_folder tmp;
  const std::string lab = tmp.file("lab.sqlite");
  std::int64_t id = 0;
  {
    auto source = database::open(lab);
    id = source.begin_run(some_gpu(source), attach_run("2026-11-21T08:30:12.123Z"));
    source.add_configuration(id, launch(0));
  }
  {
    auto into = database::open(tmp.file("all.sqlite"));
    bb::store::merge_database(into, database::open_read_only(lab), GetParam());
    EXPECT_FALSE(into.runs()[0].program_exit.has_value());
  }
  {
    auto source = database::open(lab);
    source.add_configuration(id, launch(1));
    source.finish_attach(id, bb::run_status::completed, 0, "program exited with code 0");
  }
  auto into = database::open(tmp.file("all.sqlite"));
  const auto counts = bb::store::merge_database(into, database::open_read_only(lab), GetParam());
  EXPECT_EQ(counts.runs_extended, 1);
  const auto r = into.runs().at(0);
  EXPECT_EQ(r.status, bb::run_status::completed);
  EXPECT_EQ(r.configurations, 2);
  EXPECT_EQ(r.program_exit, 0);
  EXPECT_EQ(r.note, "program exited with code 0");
}

TEST_P(store_attach_merge, a_version_8_source_merges_into_version_9_as_runs) {
  temp_folder tmp;
  const std::string v8 = tmp.file("v8.sqlite");
  std::filesystem::copy_file(std::string(BB_TEST_DATA) + "/lines/h100-transpose-regression.sqlite", v8);
  auto into = database::open(tmp.file("all.sqlite"));
  const auto source = database::open_read_only(v8);
  ASSERT_EQ(source.user_version(), 8);
  const auto counts = bb::store::merge_database(into, source, GetParam());
  EXPECT_GT(counts.runs_added, 0);
  EXPECT_EQ(scalar(tmp.file("all.sqlite"), "SELECT count(*) FROM runs"), scalar(v8, "SELECT count(*) FROM runs"));
  EXPECT_EQ(scalar(tmp.file("all.sqlite"), "SELECT group_concat(DISTINCT kind) FROM runs"), "run");
  EXPECT_EQ(scalar(v8, "PRAGMA user_version"), "8");
}

INSTANTIATE_TEST_SUITE_P(both_methods, store_attach_merge,
                         ::testing::Values(bb::store::merge_method::fastest, bb::store::merge_method::row_by_row),
                         [](const auto& param) {
                           return std::string(param.param == bb::store::merge_method::fastest ? "fastest"
                                                                                              : "row_by_row");
                         });

} // namespace

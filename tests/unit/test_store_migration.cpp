// Schema version 2: a version-1 database (as bankbench 0.1.0 wrote it) is brought forward with
// its rows intact and ends up with the same objects as a database created at version 2.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <set>
#include <string>

#include "../data/results/test_helpers.hpp"
#include "runner/store/database.hpp"
#include "runner/store/schema.hpp"

namespace {

using namespace bb::test::results;
using bb::store::database;

// (type, name, column list) of every table and view: what a schema is, whatever its SQL text.
std::set<std::string> shape_of(const std::string& path) {
  std::set<std::string> out;
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT m.type, m.name, group_concat(p.name || ':' || p.type, ',') FROM sqlite_master m, "
                     "pragma_table_info(m.name) p WHERE m.type IN ('table', 'view') GROUP BY m.type, m.name "
                     "UNION SELECT type, name, tbl_name FROM sqlite_master WHERE type = 'index'",
                     -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::string row;
    for (int i = 0; i < 3; ++i) row += std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, i))) + "|";
    out.insert(row);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

void make_version_1(const std::string& path) {
  exec(path, read_file(std::string(BB_TEST_DATA) + "/results/store_v1.sql"));
  exec(path, R"(
    INSERT INTO gpus (uuid, backend, name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, sm_clock_max_mhz,
                      mem_clock_max_mhz, cuda_driver_version, cuda_runtime_version, first_seen_at)
      VALUES ('GPU-1', 'cupti', 'NVIDIA H200', 9, 0, 132, 1, 1, 1980, 3201, 13000, 13000, '2026-11-01T09:00:00.000Z');
    INSERT INTO runs (gpu_id, started_at, status, git_commit, bankbench_version, experiment_name, experiment_path,
                      experiment_text, experiment_sha256, command_line, metrics_json, seed, warmup, samples)
      VALUES (1, '2026-11-01T10:00:00.000Z', 'completed', 'abc', '0.1.0', 'transpose', 'x.yaml', 'name: x', 'ff',
              'bankbench run', '[]', 1, 1, 1);
    INSERT INTO configurations (run_id, seq, variant, family, params_json, status, smem_access_bytes)
      VALUES (1, 0, 'transpose/padded', 'transpose', '{"n":4096}', 'ok', 4);
    INSERT INTO metrics VALUES (1, 'load_wavefronts_per_request', 0, 'ratio', 1.117, 1),
                               (1, 'load_wavefronts_per_request', 1, 'ratio', 1.119, 1);
    INSERT INTO timings (configuration_id, samples, median_ns, min_ns, max_ns, mean_ns, stddev_ns, spread,
                         bandwidth_gbps) VALUES (1, 2, 47000, 46900, 47100, 47000, 100, 0.004, 2855);
  )");
}

TEST(store_migration, version_1_database_is_upgraded_with_its_rows) {
  temp_folder tmp;
  const std::string path = tmp.file("v1.sqlite");
  make_version_1(path);
  ASSERT_EQ(scalar(path, "PRAGMA user_version"), "1");
  {
    auto db = database::open_existing(path);
    EXPECT_EQ(db.user_version(), 9);
  }
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM metrics"), "2");
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM baselines"), "0");
  EXPECT_EQ(scalar(path, "SELECT arch || ' ' || git_commit || ' ' || load_wavefronts_per_request FROM results"),
            "sm_90 abc 1.118");
  EXPECT_EQ(scalar(path, "SELECT arch FROM run_summaries WHERE run_id = 1"), "sm_90");
  EXPECT_EQ(scalar(path, "SELECT mean || ' ' || min || ' ' || max || ' ' || launches FROM metric_summaries"),
            "1.118 1.117 1.119 2");
  // Version 3's columns: old rows read as unknown resources and no throttled samples.
  EXPECT_EQ(scalar(path, "SELECT throttled_samples || ' ' || launches_per_sample FROM timings"), "0 1");
  EXPECT_EQ(scalar(path, "SELECT ifnull(host_rss_peak_bytes, 'NULL') || ifnull(device_used_bytes, 'NULL') FROM "
                         "configurations"),
            "NULLNULL");
  // Version 4's: old timings read as one placement, every sample from the verified instance.
  EXPECT_EQ(scalar(path, "SELECT placements FROM timings"), "1");
  EXPECT_EQ(scalar(path, "SELECT group_concat(name, ',') FROM pragma_table_info('timing_samples')"),
            "configuration_id,sample_index,gpu_time_ns,sm_clock_mhz,throttled,placement");
  // Version 5's: the pool's memory of old rows is not known.
  EXPECT_EQ(scalar(path, "SELECT ifnull(pool_reserved_bytes, 'NULL') FROM configurations"), "NULL");
  // Version 6's: old runs belong to no session and have no fingerprint; the widened status check
  // takes the new statuses and still refuses others, and the file passes SQLite's integrity check.
  EXPECT_EQ(scalar(path, "SELECT ifnull(session_id, 'NULL') || ifnull(fingerprint, 'NULL') FROM runs"), "NULLNULL");
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM sessions"), "0");
  exec(path, "INSERT INTO configurations (run_id, seq, variant, family, params_json, status, smem_access_bytes) "
             "VALUES (1, 1, 'reference/memcpy', 'reference', '{}', 'not_modelled', 4)");
  EXPECT_EQ(scalar(path, "SELECT status FROM configurations WHERE seq = 1"), "not_modelled");
  EXPECT_EQ(scalar(path, "SELECT sql LIKE '%''not_modelled'', ''unverified''))%' FROM sqlite_master WHERE name = "
                         "'configurations'"),
            "1");
  EXPECT_EQ(scalar(path, "PRAGMA integrity_check"), "ok");
}

TEST(store_migration, upgraded_and_new_databases_have_the_same_schema) {
  temp_folder tmp;
  make_version_1(tmp.file("old.sqlite"));
  { auto old_db = database::open(tmp.file("old.sqlite")); }
  { auto new_db = database::open(tmp.file("new.sqlite")); }
  const auto upgraded = shape_of(tmp.file("old.sqlite"));
  EXPECT_EQ(upgraded, shape_of(tmp.file("new.sqlite")));
  EXPECT_GT(upgraded.size(), 10U);
}

TEST(store_migration, results_view_reads_with_the_sqlite3_shell_columns) {
  temp_folder tmp;
  const std::string path = tmp.file("v2.sqlite");
  { auto db = database::open(path); }
  // Version 1's columns keep their places; version 2 adds four at the end.
  EXPECT_EQ(scalar(path, "SELECT group_concat(name, ',') FROM pragma_table_info('results')"),
            "run_id,experiment_name,gpu_name,seq,variant,params_json,status,load_requests,"
            "load_wavefronts_per_request,load_conflicts_per_request,store_requests,store_wavefronts_per_request,"
            "store_conflicts_per_request,median_ns,bandwidth_gbps,expectations_failed,arch,backend,git_commit,"
            "started_at");
}

TEST(store_migration, model_backend_is_an_architecture_of_its_own) {
  temp_folder tmp;
  const std::string path = tmp.file("m.sqlite");
  { auto db = database::open(path); }
  exec(path, R"(
    INSERT INTO gpus (uuid, backend, name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, sm_clock_max_mhz,
                      mem_clock_max_mhz, cuda_driver_version, cuda_runtime_version, first_seen_at)
      VALUES ('model-rules-1', 'model', 'bank model', 0, 0, 0, 0, 0, 0, 0, 0, 0, 'x');
    INSERT INTO runs (gpu_id, started_at, bankbench_version, experiment_name, experiment_path, experiment_text,
                      experiment_sha256, command_line, metrics_json, seed, warmup, samples)
      VALUES (1, 't', '0.1.0', 'e', 'p', 't', 's', 'c', '[]', 0, 0, 0);)");
  EXPECT_EQ(scalar(path, "SELECT arch FROM run_summaries"), "model");
}

} // namespace

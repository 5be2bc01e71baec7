// merge_database: runs and GPUs keep their identity, merging twice adds nothing, sources are only read.
#include <gtest/gtest.h>

#include <string>

#include "../data/results/fixtures.hpp"
#include "../data/results/lines_fixture.hpp"
#include "../data/results/test_helpers.hpp"
#include "runner/common/error.hpp"
#include "runner/store/database.hpp"
#include "runner/store/lines.hpp"
#include "runner/store/merge.hpp"

namespace {

using namespace bb::test::results;
using bb::store::database;

std::string counts(const std::string& path) {
  std::string out;
  for (const char* t :
       {"gpus", "runs", "configurations", "metrics", "timings", "timing_samples", "expectations", "baselines"})
    out += std::string(t) + "=" + scalar(path, std::string("SELECT count(*) FROM ") + t) + " ";
  return out;
}

class store_merge : public ::testing::Test {
protected:
  void SetUp() override {
    build_fixture(m_tmp.file("a.sqlite"));
    fixture_options other;
    other.host = "lab-b";
    other.hour_offset = 5;
    other.planted_regression = false;
    build_fixture(m_tmp.file("b.sqlite"), other);
  }
  temp_folder m_tmp;
};

TEST_F(store_merge, merging_twice_adds_nothing_the_second_time) {
  auto into = database::open(m_tmp.file("all.sqlite"));
  const auto a = database::open_read_only(m_tmp.file("a.sqlite"));
  const auto b = database::open_read_only(m_tmp.file("b.sqlite"));
  const auto first = bb::store::merge_database(into, a);
  EXPECT_EQ(first.runs_added, 6);
  EXPECT_EQ(first.gpus_added, 3);
  EXPECT_EQ(first.configurations_added, 54);
  const auto second = bb::store::merge_database(into, b);
  EXPECT_EQ(second.runs_added, 5);
  EXPECT_EQ(second.gpus_added, 0); // the same H200, RTX 4090 and model: (uuid, backend)
  const std::string after_once = counts(m_tmp.file("all.sqlite"));
  for (const char* t : {"runs", "configurations", "metrics", "timings", "timing_samples", "expectations"}) {
    const std::string sql = std::string("SELECT count(*) FROM ") + t;
    EXPECT_EQ(std::stoi(scalar(m_tmp.file("all.sqlite"), sql)),
              std::stoi(scalar(m_tmp.file("a.sqlite"), sql)) + std::stoi(scalar(m_tmp.file("b.sqlite"), sql)))
        << t;
  }
  EXPECT_EQ(scalar(m_tmp.file("all.sqlite"), "SELECT count(*) FROM gpus"), "3");
  for (const auto* source : {&a, &b}) {
    const auto again = bb::store::merge_database(into, *source);
    EXPECT_EQ(again.runs_added + again.runs_extended + again.configurations_added + again.gpus_added, 0);
    EXPECT_GT(again.runs_present, 0);
  }
  EXPECT_EQ(counts(m_tmp.file("all.sqlite")), after_once);
}

TEST_F(store_merge, sources_are_left_byte_for_byte_and_get_no_side_files) {
  const std::string before = read_file(m_tmp.file("a.sqlite"));
  {
    auto into = database::open(m_tmp.file("all.sqlite"));
    bb::store::merge_database(into, database::open_read_only(m_tmp.file("a.sqlite")));
  }
  EXPECT_EQ(read_file(m_tmp.file("a.sqlite")), before);
  EXPECT_FALSE(fs::exists(m_tmp.file("a.sqlite-wal")));
  EXPECT_FALSE(fs::exists(m_tmp.file("a.sqlite-shm")));
}

TEST_F(store_merge, a_run_copied_while_it_ran_is_completed_by_a_later_merge) {
  // A copy taken mid-run: run 6 still 'running' with 4 of its 9 configurations.
  fs::copy_file(m_tmp.file("a.sqlite"), m_tmp.file("partial.sqlite"));
  exec(m_tmp.file("partial.sqlite"), "UPDATE runs SET status = 'running', finished_at = NULL WHERE id = 6; "
                                     "DELETE FROM configurations WHERE run_id = 6 AND seq >= 4");
  auto into = database::open(m_tmp.file("all.sqlite"));
  bb::store::merge_database(into, database::open_read_only(m_tmp.file("partial.sqlite")));
  const auto later = bb::store::merge_database(into, database::open_read_only(m_tmp.file("a.sqlite")));
  EXPECT_EQ(later.runs_extended, 1);
  EXPECT_EQ(later.configurations_added, 5);
  EXPECT_EQ(scalar(m_tmp.file("all.sqlite"),
                   "SELECT status || ' ' || (SELECT count(*) FROM configurations WHERE run_id = "
                   "runs.id) FROM runs WHERE started_at = '2026-11-03T10:00:00.000Z'"),
            "completed 9");
}

TEST_F(store_merge, merged_rows_keep_every_value) {
  auto into = database::open(m_tmp.file("all.sqlite"));
  bb::store::merge_database(into, database::open_read_only(m_tmp.file("b.sqlite")));
  bb::store::merge_database(into, database::open_read_only(m_tmp.file("a.sqlite")));
  const std::string sum =
      "SELECT sum(value) || ' ' || (SELECT sum(gpu_time_ns) FROM timing_samples s JOIN configurations c "
      "ON c.id = s.configuration_id JOIN runs r ON r.id = c.run_id WHERE r.host = 'lab-h200') "
      "FROM metrics m JOIN configurations c ON c.id = m.configuration_id JOIN runs r ON r.id = c.run_id "
      "WHERE r.host = 'lab-h200'";
  EXPECT_EQ(scalar(m_tmp.file("all.sqlite"), sum), scalar(m_tmp.file("a.sqlite"), sum));
  EXPECT_EQ(scalar(m_tmp.file("all.sqlite"), "SELECT group_concat(name, ',') FROM (SELECT name FROM gpus ORDER BY id)"),
            "NVIDIA H200,NVIDIA GeForce RTX 4090,bank model (rules 1)");
}

TEST_F(store_merge, shards_that_started_a_file_in_the_same_millisecond_stay_apart) {
  // Two tasks of a sweep on one host and GPU: the same runs' started_at, file and host, each
  // with the configurations of its own shard (even seqs in task 0, odd ones in task 1).
  for (int task : {0, 1}) {
    const std::string shard = m_tmp.file("shard-" + std::to_string(task) + ".sqlite");
    fs::copy_file(m_tmp.file("a.sqlite"), shard);
    exec(shard, "UPDATE runs SET slurm_job_id = '41', slurm_array_task_id = '" + std::to_string(task) + "', shard = '" +
                    std::to_string(task) +
                    "/2'; DELETE FROM configurations WHERE seq % 2 = " + std::to_string(1 - task));
  }
  const std::string runs = scalar(m_tmp.file("a.sqlite"), "SELECT count(*) FROM runs");
  const std::string configurations = scalar(m_tmp.file("a.sqlite"), "SELECT count(*) FROM configurations");
  auto into = database::open(m_tmp.file("all.sqlite"));
  for (const char* shard : {"shard-0.sqlite", "shard-1.sqlite"}) {
    const auto c = bb::store::merge_database(into, database::open_read_only(m_tmp.file(shard)));
    EXPECT_EQ(c.runs_added, std::stoi(runs)) << shard;
    EXPECT_EQ(c.runs_extended + c.runs_present, 0) << shard;
  }
  EXPECT_EQ(scalar(m_tmp.file("all.sqlite"), "SELECT count(*) FROM configurations"), configurations);
  EXPECT_EQ(scalar(m_tmp.file("all.sqlite"), "SELECT count(DISTINCT slurm_array_task_id) FROM runs"), "2");
  EXPECT_EQ(scalar(m_tmp.file("all.sqlite"),
                   "SELECT count(*) FROM runs WHERE shard IS NOT slurm_array_task_id || '/2'"),
            "0");
  // And each shard merged again adds nothing.
  for (const char* shard : {"shard-0.sqlite", "shard-1.sqlite"})
    EXPECT_EQ(bb::store::merge_database(into, database::open_read_only(m_tmp.file(shard))).runs_present,
              std::stoi(runs));
}

TEST_F(store_merge, attached_and_row_by_row_copies_are_the_same) {
  using bb::store::merge_method;
  for (const auto& [name, method] :
       {std::pair{"fast.sqlite", merge_method::fastest}, std::pair{"slow.sqlite", merge_method::row_by_row}}) {
    auto into = database::open(m_tmp.file(name));
    bb::store::merge_database(into, database::open_read_only(m_tmp.file("b.sqlite")), method);
    const auto counts = bb::store::merge_database(into, database::open_read_only(m_tmp.file("a.sqlite")), method);
    EXPECT_EQ(counts.runs_added, 6) << name; // another host: every run is new
  }
  // Every stored value, in the order the rows were written.
  const std::string all =
      "SELECT (SELECT group_concat(r.started_at || c.seq || m.name || m.launch_index || m.value || m.unit || "
      "m.derived, ';') "
      "        FROM metrics m JOIN configurations c ON c.id = m.configuration_id JOIN runs r ON r.id = c.run_id) || "
      "       (SELECT group_concat(configuration_id || sample_index || gpu_time_ns, ';') FROM timing_samples) || "
      "       (SELECT group_concat(configuration_id || median_ns || bandwidth_gbps, ';') FROM timings) || "
      "       (SELECT group_concat(id || configuration_id || text || observed || passed, ';') FROM expectations)";
  EXPECT_EQ(scalar(m_tmp.file("fast.sqlite"), all), scalar(m_tmp.file("slow.sqlite"), all));
  EXPECT_GT(scalar(m_tmp.file("fast.sqlite"), all).size(), 100000U);
}

TEST_F(store_merge, a_version_1_source_is_read_as_it_is_and_not_upgraded) {
  const std::string v1 = m_tmp.file("v1.sqlite");
  exec(v1, read_file(std::string(BB_TEST_DATA) + "/results/store_v1.sql"));
  exec(v1,
       "INSERT INTO gpus (uuid, backend, name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, "
       "sm_clock_max_mhz, mem_clock_max_mhz, cuda_driver_version, cuda_runtime_version, first_seen_at) "
       "VALUES ('GPU-h200-0001', 'cupti', 'NVIDIA H200', 9, 0, 132, 1, 1, 1, 1, 13000, 13000, 'x'); "
       "INSERT INTO runs (gpu_id, started_at, status, bankbench_version, experiment_name, experiment_path, "
       "experiment_text, experiment_sha256, command_line, metrics_json, seed, warmup, samples) "
       "VALUES (1, '2025-01-01T00:00:00.000Z', 'completed', '0.1.0', 'transpose', 'p', 't', 's', 'c', '[]', 0, 0, 0); "
       "INSERT INTO configurations (run_id, seq, variant, family, params_json, status, smem_access_bytes) "
       "VALUES (1, 0, 'transpose/naive', 'transpose', '{\"n\":64}', 'ok', 4); "
       "INSERT INTO metrics VALUES (1, 'load_wavefronts_per_request', 0, 'ratio', 32, 1);");
  const std::string before = read_file(v1);
  auto into = database::open(m_tmp.file("all.sqlite"));
  bb::store::merge_database(into, database::open_read_only(m_tmp.file("a.sqlite")));
  const auto counts = bb::store::merge_database(into, database::open_read_only(v1));
  EXPECT_EQ(counts.runs_added, 1);
  EXPECT_EQ(counts.gpus_added, 0); // the H200 of a.sqlite
  EXPECT_EQ(counts.metric_rows_added, 1);
  // Its run, now in a database with Slurm columns, is still the same run.
  const auto again = bb::store::merge_database(into, database::open_read_only(v1));
  EXPECT_EQ(again.runs_added + again.runs_extended + again.configurations_added, 0);
  EXPECT_EQ(again.runs_present, 1);
  EXPECT_EQ(scalar(v1, "PRAGMA user_version"), "1");
  EXPECT_EQ(read_file(v1), before);
}

// Each configuration's lines, as (run started_at, seq, function, pc, file, line, wavefronts, ideal):
// what they belong to, whatever ids the merge gave.
std::string lines_by_run_and_seq(const std::string& path) {
  return scalar(path, "SELECT group_concat(x, ';') FROM (SELECT r.started_at || ',' || c.seq || ',' || lc.status || "
                      "',' || ifnull(l.function, '') || ',' || ifnull(l.pc, '') || ',' || ifnull(l.line, '') || ',' || "
                      "ifnull(l.wavefronts, '') || ',' || ifnull(l.ideal, '') AS x FROM line_collections lc JOIN "
                      "configurations c ON c.id = lc.configuration_id JOIN runs r ON r.id = c.run_id LEFT JOIN "
                      "line_counters l ON l.configuration_id = c.id ORDER BY x)");
}

TEST_F(store_merge, lines_come_with_their_configurations_under_the_new_ids) {
  bb::test::lines::build_lines_fixture(m_tmp.file("lines.sqlite"), m_tmp.path().string());
  const std::string expected = lines_by_run_and_seq(m_tmp.file("lines.sqlite"));
  ASSERT_NE(expected, "");
  for (const auto method : {bb::store::merge_method::fastest, bb::store::merge_method::row_by_row}) {
    const std::string path = m_tmp.file(method == bb::store::merge_method::fastest ? "fast.sqlite" : "rows.sqlite");
    auto into = database::open(path);
    // The results fixture first: the probe's configurations get other ids than in their source.
    bb::store::merge_database(into, database::open_read_only(m_tmp.file("a.sqlite")), method);
    const auto counts = bb::store::merge_database(into, database::open_read_only(m_tmp.file("lines.sqlite")), method);
    EXPECT_EQ(counts.line_collections_added, 3);
    EXPECT_EQ(counts.line_rows_added, 8);
    EXPECT_EQ(lines_by_run_and_seq(path), expected);
    EXPECT_NE(scalar(path, "SELECT min(configuration_id) FROM line_collections"),
              scalar(m_tmp.file("lines.sqlite"), "SELECT min(configuration_id) FROM line_collections"));
    const auto again = bb::store::merge_database(into, database::open_read_only(m_tmp.file("lines.sqlite")), method);
    EXPECT_EQ(again.line_collections_added, 0);
    EXPECT_EQ(again.line_rows_added, 0);
    EXPECT_EQ(again.runs_present, 2);
    EXPECT_EQ(scalar(path, "SELECT count(*) FROM line_counters"), "8");
  }
}

TEST_F(store_merge, lines_collected_after_a_copy_are_added_by_the_next_merge) {
  const std::string source = bb::test::lines::build_lines_fixture(m_tmp.file("lines.sqlite"), m_tmp.path().string());
  // A copy without the lines of run 2's hist (taken before they were stored).
  {
    auto db = database::open(m_tmp.file("lines.sqlite"));
    for (const char* table : {"line_counters", "line_collections"})
      exec(m_tmp.file("lines.sqlite"), std::string("DELETE FROM ") + table +
                                           " WHERE configuration_id = (SELECT id FROM configurations WHERE run_id = 2 "
                                           "AND seq = 1)");
  }
  auto into = database::open(m_tmp.file("all.sqlite"));
  bb::store::merge_database(into, database::open_read_only(m_tmp.file("lines.sqlite")));
  EXPECT_EQ(scalar(m_tmp.file("all.sqlite"), "SELECT count(*) FROM line_collections"), "2");
  {
    auto db = database::open(m_tmp.file("lines.sqlite"));
    bb::store::add_lines(db, 2, 1, bb::test::lines::hist_lines(source));
  }
  const auto later = bb::store::merge_database(into, database::open_read_only(m_tmp.file("lines.sqlite")));
  EXPECT_EQ(later.configurations_added, 0);
  EXPECT_EQ(later.line_collections_added, 1);
  EXPECT_EQ(later.line_rows_added, 3);
  EXPECT_EQ(later.runs_extended, 1);
  EXPECT_EQ(lines_by_run_and_seq(m_tmp.file("all.sqlite")), lines_by_run_and_seq(m_tmp.file("lines.sqlite")));
}

TEST_F(store_merge, foreign_and_newer_sources_are_refused_when_opened) {
  exec(m_tmp.file("foreign.sqlite"), "CREATE TABLE customers (id INTEGER PRIMARY KEY)");
  EXPECT_THROW(database::open_read_only(m_tmp.file("foreign.sqlite")), bb::store_error);
  exec(m_tmp.file("b.sqlite"), "PRAGMA user_version = 99");
  try {
    database::open_read_only(m_tmp.file("b.sqlite"));
    FAIL() << "a newer database was opened";
  } catch (const bb::store_error& e) {
    EXPECT_NE(std::string(e.what()).find("written by a newer bankbench (schema 99"), std::string::npos) << e.what();
  }
}

} // namespace

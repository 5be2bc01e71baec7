// The read models: columns read by name, and one read of a run whichever reader asks for it
// (database::runs(), database::run() and run_infos()), in a current database and in an old one.
#include <gtest/gtest.h>

#include <string>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "runner/common/error.hpp"
#include "runner/store/database.hpp"
#include "runner/store/read_model.hpp"
#include "runner/store/results.hpp"
#include "runner/store/sqlite.hpp"

namespace {

using namespace bb::test::results;
using namespace bb::store;

class store_read_model : public ::testing::Test {
protected:
  void SetUp() override {
    build_fixture(m_tmp.file("f.sqlite"));
    auto db = database::open(m_tmp.file("f.sqlite"));
    const auto session = db.begin_session({"2026-11-03T09:00:00.000Z", "node-7", "bankbench run", 4242});
    // Run 3 as a Slurm array task wrote it: every version-6 column set.
    exec(m_tmp.file("f.sqlite"),
         "UPDATE runs SET session_id = " + std::to_string(session) +
             ", pid = 4242, sources_sha256 = 'src0123', fingerprint = 'fp456789abcdef', slurm_job_id = '9001', "
             "slurm_array_task_id = '3', cuda_visible_devices = '2', shard = '2/4' WHERE id = 3");
    m_db.emplace(database::open_existing(m_tmp.file("f.sqlite")));
  }
  temp_folder m_tmp;
  std::optional<database> m_db;
};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const bb::store_error& e) {
    return e.what();
  }
  return "no store_error";
}

TEST_F(store_read_model, a_missing_column_is_a_store_error_naming_it_and_the_operation) {
  sqlite::statement st(m_db->handle(), m_db->path(), "SELECT r.id AS id, r.host AS host FROM runs r", "reading hosts");
  EXPECT_EQ(st.column_index("id"), 0);
  EXPECT_EQ(st.column_index("host"), 1);
  EXPECT_EQ(message_of([&] { (void)st.column_index("started_at"); }),
            m_db->path() + ": reading hosts: the result has no column 'started_at'");
  // A reader looks its columns up when it is made, before any row: the first missing one is named.
  EXPECT_EQ(message_of([&] { const run_reader reader(st); }),
            m_db->path() + ": reading hosts: the result has no column 'gpu_id'");
}

TEST_F(store_read_model, the_columns_a_reader_selects_are_the_ones_it_reads) {
  const std::string sql = "SELECT " + run_reader::columns(6) + " FROM runs r JOIN gpus g ON g.id = r.gpu_id";
  sqlite::statement st(m_db->handle(), m_db->path(), sql.c_str(), "reading runs");
  EXPECT_NO_THROW(run_reader{st});
  // An older schema selects NULL for what it lacks, under the same names.
  const std::string v1 = "SELECT " + run_reader::columns(1) + " FROM runs r JOIN gpus g ON g.id = r.gpu_id";
  EXPECT_NE(v1.find("NULL AS shard"), std::string::npos);
  EXPECT_EQ(v1.find("r.shard"), std::string::npos);
}

TEST_F(store_read_model, run_infos_runs_and_run_read_the_same_run) {
  const auto infos = run_infos(*m_db);
  const auto rows = m_db->runs(); // newest first
  ASSERT_EQ(infos.size(), 6U);
  ASSERT_EQ(rows.size(), infos.size());
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const run_info& info = infos[i];
    const run_row& row = rows[rows.size() - 1 - i];
    const auto detail = m_db->run(info.id);
    ASSERT_TRUE(detail.has_value());
    for (const run_detail* d : {static_cast<const run_detail*>(&row), &*detail}) {
      SCOPED_TRACE("run " + std::to_string(info.id));
      EXPECT_EQ(d->id, info.id);
      EXPECT_EQ(d->status, info.status);
      EXPECT_EQ(d->gpu_id, info.gpu_id);
      EXPECT_EQ(d->run.started_at, info.started_at);
      EXPECT_EQ(d->run.git_commit, info.git_commit);
      EXPECT_EQ(d->run.git_dirty, info.git_dirty);
      EXPECT_EQ(d->run.host, info.host);
      EXPECT_EQ(d->run.experiment_name, info.experiment_name);
      EXPECT_EQ(d->run.experiment_sha256, info.experiment_sha256);
      EXPECT_EQ(d->gpu.name, info.gpu_name);
      EXPECT_EQ(d->gpu.uuid, info.gpu_uuid);
      EXPECT_EQ(d->gpu.backend, info.backend);
      EXPECT_EQ(architecture(d->gpu.backend, d->gpu.cc_major, d->gpu.cc_minor), info.arch);
      EXPECT_EQ(d->run.session_id, info.session_id);
      EXPECT_EQ(d->run.pid, info.pid);
      EXPECT_EQ(d->run.fingerprint, info.fingerprint);
      EXPECT_EQ(d->run.sources_sha256, info.sources_sha256);
      EXPECT_EQ(d->run.slurm_job_id, info.slurm_job_id);
      EXPECT_EQ(d->run.slurm_array_task_id, info.slurm_array_task_id);
      EXPECT_EQ(d->run.cuda_visible_devices, info.cuda_visible_devices);
      EXPECT_EQ(d->run.shard, info.shard);
    }
    // Everything else a run holds is read once too, so both readers agree on it.
    EXPECT_EQ(row.run.experiment_text, detail->run.experiment_text);
    EXPECT_EQ(row.run.metrics, detail->run.metrics);
    EXPECT_EQ(row.gpu.memory_bytes, detail->gpu.memory_bytes);
    EXPECT_EQ(row.configurations, 9);
  }
  // The values themselves, for the run that has every column set.
  const run_info& r3 = infos[2];
  EXPECT_EQ(r3.id, 3);
  EXPECT_EQ(r3.started_at, "2026-11-01T12:00:00.000Z");
  EXPECT_EQ(r3.git_commit, k_commit_1);
  EXPECT_EQ(r3.host, "lab-h200");
  EXPECT_EQ(r3.gpu_name, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(r3.arch, "sm_89");
  EXPECT_GT(r3.session_id, 0);
  EXPECT_EQ(r3.pid, 4242);
  EXPECT_EQ(r3.fingerprint, "fp456789abcdef");
  EXPECT_EQ(r3.sources_sha256, "src0123");
  EXPECT_EQ(r3.slurm_job_id, "9001");
  EXPECT_EQ(r3.slurm_array_task_id, "3");
  EXPECT_EQ(r3.cuda_visible_devices, "2");
  EXPECT_EQ(r3.shard, "2/4");
  EXPECT_EQ(infos[0].session_id, 0);
  EXPECT_EQ(infos[0].shard, "");
  const auto detail = m_db->run(3);
  EXPECT_EQ(detail->run.metrics, (std::vector<std::string>{bb::metrics::k_ld_requests, bb::metrics::k_ld_conflicts}));
  EXPECT_EQ(detail->run.samples, 10);
  EXPECT_EQ(detail->gpu.chip, "AD102");
  EXPECT_EQ(detail->gpu.sm_count, 128);
}

TEST_F(store_read_model, configurations_and_read_results_read_the_same_configuration_columns) {
  const auto shown = m_db->configurations(4);
  const auto results = read_results(*m_db, {4});
  ASSERT_EQ(shown.size(), 9U);
  ASSERT_EQ(results.size(), shown.size());
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const stored_configuration& a = shown[i];
    const stored_configuration& b = results[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.run_id, 4);
    EXPECT_EQ(b.run_id, 4);
    EXPECT_EQ(a.seq, static_cast<int>(i));
    EXPECT_EQ(b.seq, a.seq);
    EXPECT_EQ(b.variant, a.variant);
    EXPECT_EQ(b.family, a.family);
    EXPECT_EQ(b.params_json, a.params_json);
    EXPECT_EQ(b.status, a.status);
    EXPECT_EQ(b.bytes_moved, a.bytes_moved);
    EXPECT_EQ(b.smem_access_bytes, a.smem_access_bytes);
    EXPECT_EQ(results[i].experiment, "transpose");
    EXPECT_EQ(results[i].arch, "model");
  }
  EXPECT_EQ(shown[4].variant, "transpose/padded");
  EXPECT_EQ(shown[4].params_json, "{\"n\":4096}");
  EXPECT_EQ(shown[4].bytes_moved, 2ULL * 4096 * 4096 * 4);
  EXPECT_FALSE(shown[4].timing.has_value()); // the model times nothing
  // A measured run's timing summary is read by name as well.
  const auto measured = m_db->configurations(1);
  ASSERT_TRUE(measured[0].timing.has_value());
  EXPECT_GT(measured[0].timing->median_ns, 0);
  EXPECT_EQ(read_results(*m_db, {1})[0].median_ns, measured[0].timing->median_ns);
}

TEST(store_read_model_v1, a_version_1_database_opened_read_only_reads_with_empty_version_6_columns) {
  temp_folder tmp;
  const std::string v1 = tmp.file("v1.sqlite");
  exec(v1, read_file(std::string(BB_TEST_DATA) + "/results/store_v1.sql"));
  exec(v1,
       "INSERT INTO gpus (uuid, backend, name, chip, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, "
       "sm_clock_max_mhz, mem_clock_max_mhz, cuda_driver_version, cuda_runtime_version, first_seen_at) "
       "VALUES ('GPU-h200-0001', 'cupti', 'NVIDIA H200', 'GH100', 9, 0, 132, 7, 5, 1980, 3201, 13000, 13000, 'x'); "
       "INSERT INTO runs (gpu_id, started_at, status, host, git_commit, bankbench_version, experiment_name, "
       "experiment_path, experiment_text, experiment_sha256, command_line, metrics_json, seed, warmup, samples) "
       "VALUES (1, '2025-01-01T00:00:00.000Z', 'completed', 'old-host', 'abc', '0.1.0', 'transpose', 'p', 't', 's', "
       "'c', '[\"m1\"]', 5, 2, 3); "
       "INSERT INTO configurations (run_id, seq, variant, family, params_json, status, smem_access_bytes) "
       "VALUES (1, 0, 'transpose/naive', 'transpose', '{\"n\":64}', 'failed', 4);");
  const auto db = database::open_read_only(v1);
  ASSERT_EQ(db.user_version(), 1);

  const auto rows = db.runs();
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].run.started_at, "2025-01-01T00:00:00.000Z");
  EXPECT_EQ(rows[0].run.host, "old-host");
  EXPECT_EQ(rows[0].gpu.name, "NVIDIA H200");
  EXPECT_EQ(rows[0].configurations, 1);
  EXPECT_EQ(rows[0].failed_configurations, 1);
  EXPECT_EQ(rows[0].run.session_id, 0);
  EXPECT_EQ(rows[0].run.pid, 0);
  EXPECT_EQ(rows[0].run.shard, "");

  const auto detail = db.run(1);
  ASSERT_TRUE(detail.has_value());
  EXPECT_EQ(detail->run.metrics, std::vector<std::string>{"m1"});
  EXPECT_EQ(detail->run.seed, 5U);
  EXPECT_EQ(detail->gpu.chip, "GH100");
  EXPECT_EQ(detail->run.fingerprint, "");

  const auto infos = run_infos(db);
  ASSERT_EQ(infos.size(), 1U);
  EXPECT_EQ(infos[0].arch, "sm_90");
  EXPECT_EQ(infos[0].git_commit, "abc");
  EXPECT_EQ(infos[0].slurm_job_id, "");
  const auto configurations = db.configurations(1);
  ASSERT_EQ(configurations.size(), 1U);
  EXPECT_EQ(configurations[0].status, bb::config_status::failed);
  // Read, never upgraded.
  EXPECT_EQ(scalar(v1, "PRAGMA user_version"), "1");
}

} // namespace

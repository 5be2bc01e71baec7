// Writing runs: the rows each call leaves, one transaction per configuration, hostile text.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <unistd.h>

#include "runner/common/error.hpp"
#include "runner/store/database.hpp"
#include "runner/store/results.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bb::store;

bb::store::gpu_record test_gpu() {
  gpu_record g;
  g.uuid = "GPU-8c6f0a41-0000-4d1c-9d0e-000000000001";
  g.name = "NVIDIA H100 80GB HBM3";
  g.chip = "GH100";
  g.cc_major = 9;
  g.cc_minor = 0;
  g.sm_count = 132;
  g.memory_bytes = 85'045'379'072ULL;
  g.l2_bytes = 52'428'800;
  g.sm_clock_max_mhz = 1980;
  g.mem_clock_max_mhz = 2619;
  g.driver_version = "580.159.04";
  g.cuda_driver_version = 13000;
  g.cuda_runtime_version = 13000;
  return g;
}

run_record test_run() {
  run_record r;
  r.started_at = "2026-11-21T08:30:12.123Z";
  r.host = "node7";
  r.git_commit = "0123456789abcdef0123456789abcdef01234567";
  r.git_dirty = true;
  r.bankbench_version = "0.1.0";
  r.experiment_name = "transpose";
  r.experiment_path = "experiments/transpose/transpose.yaml";
  r.experiment_text = "name: transpose\n";
  r.experiment_sha256 = std::string(64, 'a');
  r.command_line = "bankbench run experiments/transpose/transpose.yaml";
  r.metric_set = "bank_conflicts";
  r.metrics = {"smsp__sass_inst_executed_op_shared_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"};
  r.seed = 1234;
  r.warmup = 2;
  r.samples = 3;
  return r;
}

/// seq 0: two launches of three values each, three timing samples, two expectations (one failed).
configuration_record measured_configuration() {
  configuration_record c;
  c.seq = 0;
  c.variant = "transpose/naive";
  c.family = "transpose";
  c.params_json = R"({"n":1024})";
  c.bytes_moved = 8'388'608;
  c.verified_elements = 1'048'576;
  c.started_at = "2026-11-21T08:30:13.000Z";
  c.finished_at = "2026-11-21T08:30:14.000Z";
  for (int launch = 0; launch < 2; ++launch)
    c.launches.push_back({launch,
                          {{"smsp__sass_inst_executed_op_shared_ld.sum", "inst", 32768, false},
                           {"load_requests", "requests", 32768, true},
                           {"load_wavefronts_per_request", "ratio", launch == 0 ? 1.0 : 1.5, true}}});
  timing_record t = summarize_samples({12000, 12340, 13000});
  t.sm_clock_mhz = 1980;
  t.sm_clock_max_mhz = 1980;
  t.bandwidth_gbps = bandwidth_gbps(c.bytes_moved, t.median_ns);
  c.timing = t;
  c.expectations = {{"load_wavefronts_per_request", "load_wavefronts_per_request == 1", 1.25, false},
                    {"load_requests", "load_requests > 0", 32768, true}};
  return c;
}

configuration_record failed_configuration() {
  configuration_record c;
  c.seq = 1;
  c.variant = "transpose/padded";
  c.family = "transpose";
  c.params_json = R"({"n":4096,"tile":64})";
  c.status = bb::config_status::unsupported;
  c.reason = "tile 64 needs 33 KiB of shared memory per block";
  return c;
}

class store_writer : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = fs::temp_directory_path() / ("bb_test_store_writer_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(m_dir);
    m_db.emplace(database::open((m_dir / "bankbench.sqlite").string()));
  }
  void TearDown() override {
    m_db.reset();
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }

  /// The one value `sql` selects, as text ("" for NULL). `sql` is a constant of the test.
  std::string value(const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(m_db->handle(), sql.c_str(), -1, &st, nullptr), SQLITE_OK)
        << sqlite3_errmsg(m_db->handle());
    std::string out;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != nullptr)
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return out;
  }
  int count(const std::string& table) { return std::stoi(value("SELECT count(*) FROM " + table)); }

  /// Rows in every table, in a fixed order.
  std::vector<int> counts() {
    std::vector<int> n;
    for (const char* t : {"gpus", "runs", "configurations", "metrics", "timings", "timing_samples", "expectations"})
      n.push_back(count(t));
    return n;
  }

  fs::path m_dir;
  std::optional<database> m_db;
};

TEST_F(store_writer, same_gpu_twice_is_one_row_with_updated_fields) {
  auto g = test_gpu();
  const auto id = m_db->upsert_gpu(g);
  const std::string first_seen = value("SELECT first_seen_at FROM gpus");
  g.driver_version = "580.200.01";
  EXPECT_EQ(m_db->upsert_gpu(g), id);
  EXPECT_EQ(count("gpus"), 1);
  EXPECT_EQ(value("SELECT driver_version FROM gpus"), "580.200.01");
  EXPECT_EQ(value("SELECT first_seen_at FROM gpus"), first_seen);

  g.backend = "model";
  EXPECT_NE(m_db->upsert_gpu(g), id);
  EXPECT_EQ(count("gpus"), 2);
  const auto gpus = m_db->gpus();
  ASSERT_EQ(gpus.size(), 2U);
  EXPECT_EQ(gpus[0].gpu.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpus[0].gpu.memory_bytes, 85'045'379'072ULL);
  EXPECT_EQ(gpus[0].gpu.backend, "cupti");
  EXPECT_EQ(gpus[1].gpu.backend, "model");
}

TEST_F(store_writer, run_with_two_configurations_writes_exactly_its_rows) {
  const auto gpu = m_db->upsert_gpu(test_gpu());
  const auto run = m_db->begin_run(gpu, test_run());
  EXPECT_EQ(value("SELECT status FROM runs"), "running");
  EXPECT_EQ(value("SELECT finished_at FROM runs"), "");
  m_db->add_configuration(run, measured_configuration());
  m_db->add_configuration(run, failed_configuration());
  m_db->finish_run(run, bb::run_status::completed);

  EXPECT_EQ(counts(), (std::vector<int>{1, 1, 2, 6, 1, 3, 2}));
  EXPECT_EQ(value("SELECT status FROM runs"), "completed");
  EXPECT_EQ(value("SELECT length(finished_at) FROM runs"), "24");
  EXPECT_EQ(value("SELECT metrics_json FROM runs"), R"(["smsp__sass_inst_executed_op_shared_ld.sum",)"
                                                    R"("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"])");
  EXPECT_EQ(value("SELECT git_dirty || seed || warmup || samples FROM runs"), "1123423");
  EXPECT_EQ(value("SELECT group_concat(seq || ':' || status || ':' || ifnull(reason, 'NULL'), '|') FROM "
                  "configurations"),
            "0:ok:NULL|1:unsupported:tile 64 needs 33 KiB of shared memory per block");
  EXPECT_EQ(value("SELECT value FROM metrics WHERE name = 'load_wavefronts_per_request' AND launch_index = 1"), "1.5");
  EXPECT_EQ(value("SELECT derived FROM metrics WHERE name = 'smsp__sass_inst_executed_op_shared_ld.sum' LIMIT 1"), "0");
  EXPECT_EQ(value("SELECT median_ns || ' ' || min_ns || ' ' || max_ns || ' ' || samples FROM timings"),
            "12340.0 12000.0 13000.0 3");
  EXPECT_EQ(value("SELECT group_concat(gpu_time_ns, ' ') FROM (SELECT gpu_time_ns FROM timing_samples "
                  "ORDER BY sample_index)"),
            "12000.0 12340.0 13000.0");
  EXPECT_EQ(value("SELECT group_concat(passed || ':' || observed, ' ') FROM expectations"), "0:1.25 1:32768.0");

  const auto runs = m_db->runs();
  ASSERT_EQ(runs.size(), 1U);
  EXPECT_EQ(runs[0].configurations, 2);
  EXPECT_EQ(runs[0].failed_configurations, 1);
  EXPECT_EQ(runs[0].failed_expectations, 1);
  EXPECT_EQ(runs[0].gpu.name, "NVIDIA H100 80GB HBM3");

  const auto detail = m_db->run(run);
  ASSERT_TRUE(detail.has_value());
  EXPECT_EQ(detail->run.metrics, test_run().metrics);
  EXPECT_EQ(detail->run.experiment_text, "name: transpose\n");
  EXPECT_EQ(detail->gpu.driver_version, "580.159.04");
  EXPECT_EQ(detail->gpu.cuda_driver_version, 13000);
  EXPECT_FALSE(m_db->run(run + 1).has_value());

  const auto rows = m_db->configurations(run);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_DOUBLE_EQ(rows[0].metric_means.at("load_wavefronts_per_request"), 1.25);
  ASSERT_TRUE(rows[0].timing.has_value());
  EXPECT_DOUBLE_EQ(rows[0].timing->median_ns, 12340);
  EXPECT_EQ(rows[0].timing->sm_clock_mhz, 1980);
  EXPECT_EQ(rows[0].expectations.size(), 2U);
  EXPECT_FALSE(rows[1].timing.has_value());
  EXPECT_TRUE(rows[1].metric_means.empty());
}

TEST_F(store_writer, samples_keep_the_placement_they_timed) {
  const auto run = m_db->begin_run(m_db->upsert_gpu(test_gpu()), test_run());
  auto c = measured_configuration();
  c.timing = summarize_samples({21000, 21500, 20400, 20600, 20500}, {0, 0, 1, 1, 2});
  m_db->add_configuration(run, c);
  EXPECT_EQ(value("SELECT group_concat(placement, ' ') FROM (SELECT * FROM timing_samples ORDER BY sample_index)"),
            "0 0 1 1 2");
  EXPECT_EQ(value("SELECT placements || ' ' || median_ns || ' ' || min_ns || ' ' || max_ns FROM timings"),
            "3 20500.0 20400.0 21500.0");
}

TEST_F(store_writer, samples_read_back_give_the_median_stored) {
  const auto run = m_db->begin_run(m_db->upsert_gpu(test_gpu()), test_run());
  auto c = measured_configuration();
  c.timing = summarize_samples({21000, 21500, 20400, 20600, 20500}, {0, 0, 1, 1, 2});
  m_db->add_configuration(run, c);
  const auto rows = bb::store::read_results(*m_db, {run}, {{}, true});
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].sample_placement, (std::vector<int>{0, 0, 1, 1, 2}));
  EXPECT_DOUBLE_EQ(rows[0].sample_median(), 20500); // the fastest placement's, not 20600 of all five
  EXPECT_DOUBLE_EQ(rows[0].sample_median(), *rows[0].median_ns);
}

TEST_F(store_writer, samples_keep_their_clock_and_throttle_state_and_configurations_their_resources) {
  const auto run = m_db->begin_run(m_db->upsert_gpu(test_gpu()), test_run());
  auto c = measured_configuration();
  c.timing->sample_sm_clock_mhz = {1980, 1755, 0};
  c.timing->sample_throttled = {0, 1, 0};
  c.timing->throttled_samples = 1;
  c.timing->launches_per_sample = 4;
  c.host_rss_peak_bytes = 123'456'789;
  c.device_used_bytes = 987'654'321;
  c.pool_reserved_bytes = 2'097'152;
  m_db->add_configuration(run, c);
  m_db->add_configuration(run, failed_configuration());
  EXPECT_EQ(value("SELECT group_concat(ifnull(sm_clock_mhz, 'NULL') || ':' || throttled, ' ') FROM "
                  "(SELECT * FROM timing_samples ORDER BY sample_index)"),
            "1980:0 1755:1 NULL:0");
  EXPECT_EQ(value("SELECT group_concat(placement, ' ') FROM (SELECT * FROM timing_samples ORDER BY sample_index)"),
            "0 0 0");
  EXPECT_EQ(value("SELECT placements FROM timings"), "1");
  EXPECT_EQ(value("SELECT throttled_samples || ' ' || launches_per_sample FROM timings"), "1 4");
  EXPECT_EQ(value("SELECT group_concat(ifnull(host_rss_peak_bytes, 'NULL') || ':' || ifnull(device_used_bytes, "
                  "'NULL') || ':' || ifnull(pool_reserved_bytes, 'NULL'), ' ') FROM (SELECT * FROM configurations "
                  "ORDER BY seq)"),
            "123456789:987654321:2097152 NULL:NULL:NULL");
}

TEST_F(store_writer, a_configuration_that_fails_half_way_leaves_no_rows) {
  const auto run = m_db->begin_run(m_db->upsert_gpu(test_gpu()), test_run());
  m_db->add_configuration(run, failed_configuration());
  const auto before = counts();

  // The configuration row and the first launch are written before the repeated metric fails.
  auto broken = measured_configuration();
  broken.launches[1].values.push_back(broken.launches[1].values[0]);
  try {
    m_db->add_configuration(run, broken);
    FAIL() << "no bb::store_error";
  } catch (const bb::store_error& e) {
    EXPECT_NE(std::string(e.what()).find("UNIQUE constraint failed: metrics"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("recording configuration 0 (transpose/naive"), std::string::npos) << e.what();
  }
  EXPECT_EQ(counts(), before);

  // A status outside the schema's list fails on the first row.
  auto bad_status = measured_configuration();
  bad_status.status = static_cast<bb::config_status>(99); // name_of: "unknown"
  EXPECT_THROW(m_db->add_configuration(run, bad_status), bb::store_error);
  EXPECT_EQ(counts(), before);

  // Nothing of the failures is left in the way of a correct write.
  m_db->add_configuration(run, measured_configuration());
  EXPECT_EQ(count("configurations"), 2);
  EXPECT_EQ(count("metrics"), 6);
}

TEST_F(store_writer, a_write_batch_stores_its_configurations_together_or_none_of_them) {
  const auto run = m_db->begin_run(m_db->upsert_gpu(test_gpu()), test_run());
  const auto before = counts();
  {
    database::write_batch batch(*m_db, "recording a group");
    m_db->add_configuration(run, measured_configuration());
    m_db->add_configuration(run, failed_configuration());
    EXPECT_EQ(count("configurations"), 2); // visible inside the transaction
  }                                        // not committed: rolled back
  EXPECT_EQ(counts(), before);

  {
    database::write_batch batch(*m_db, "recording a group");
    m_db->add_configuration(run, measured_configuration());
    m_db->add_configuration(run, failed_configuration());
    batch.commit();
  }
  EXPECT_EQ(count("configurations"), 2);
  EXPECT_EQ(count("metrics"), 6);
  const auto committed = counts();

  // A configuration failing half way inside a batch takes the batch's other rows with it.
  try {
    database::write_batch batch(*m_db, "recording a group");
    auto third = measured_configuration();
    third.seq = 2;
    m_db->add_configuration(run, third);
    auto broken = measured_configuration();
    broken.seq = 3;
    broken.launches[1].values.push_back(broken.launches[1].values[0]);
    m_db->add_configuration(run, broken);
    batch.commit();
    FAIL() << "no bb::store_error";
  } catch (const bb::store_error& e) {
    EXPECT_NE(std::string(e.what()).find("UNIQUE constraint failed: metrics"), std::string::npos) << e.what();
  }
  EXPECT_EQ(counts(), committed);
}

TEST_F(store_writer, hostile_text_is_stored_verbatim) {
  const std::string evil = "'; drop table runs; --";
  const auto run = m_db->begin_run(m_db->upsert_gpu(test_gpu()), test_run());
  auto c = failed_configuration();
  c.variant = evil;
  c.family = "\"); DELETE FROM gpus; --";
  c.reason = evil + "\nsecond line";
  c.params_json = R"({"name":"'; drop table configurations; --"})";
  m_db->add_configuration(run, c);
  const auto rows = m_db->configurations(run);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].variant, evil);
  EXPECT_EQ(rows[0].family, "\"); DELETE FROM gpus; --");
  EXPECT_EQ(rows[0].reason, evil + "\nsecond line");
  EXPECT_EQ(rows[0].params_json, R"({"name":"'; drop table configurations; --"})");
  EXPECT_EQ(count("runs"), 1);
  EXPECT_EQ(count("gpus"), 1);
}

TEST_F(store_writer, invalid_json_params_are_refused) {
  const auto run = m_db->begin_run(m_db->upsert_gpu(test_gpu()), test_run());
  auto c = failed_configuration();
  c.params_json = "{n: 1";
  EXPECT_THROW(m_db->add_configuration(run, c), bb::store_error);
  EXPECT_EQ(count("configurations"), 0);
}

TEST_F(store_writer, configuration_of_an_unknown_run_is_refused) {
  EXPECT_THROW(m_db->add_configuration(99, failed_configuration()), bb::store_error);
  EXPECT_THROW(m_db->finish_run(99, bb::run_status::completed), bb::store_error);
  EXPECT_EQ(count("configurations"), 0);
}

TEST_F(store_writer, results_view_reads_one_row_per_configuration) {
  const auto run = m_db->begin_run(m_db->upsert_gpu(test_gpu()), test_run());
  auto c = measured_configuration();
  for (auto& launch : c.launches) {
    launch.values.push_back({"load_conflicts_per_request", "ratio", 0.5, true});
    launch.values.push_back({"store_requests", "requests", 1024, true});
    launch.values.push_back({"store_wavefronts_per_request", "ratio", 32, true});
    launch.values.push_back({"store_conflicts_per_request", "ratio", 31, true});
  }
  m_db->add_configuration(run, c);
  m_db->add_configuration(run, failed_configuration());

  EXPECT_EQ(value("SELECT group_concat(name, ',') FROM pragma_table_info('results')"),
            "run_id,experiment_name,gpu_name,seq,variant,params_json,status,load_requests,"
            "load_wavefronts_per_request,load_conflicts_per_request,store_requests,store_wavefronts_per_request,"
            "store_conflicts_per_request,median_ns,bandwidth_gbps,expectations_failed,arch,backend,git_commit,"
            "started_at"); // schema version 2 added the last four
  EXPECT_EQ(value("SELECT run_id || '|' || experiment_name || '|' || gpu_name || '|' || seq || '|' || variant "
                  "|| '|' || params_json || '|' || status || '|' || load_requests || '|' || "
                  "load_wavefronts_per_request || '|' || load_conflicts_per_request || '|' || store_requests || "
                  "'|' || store_wavefronts_per_request || '|' || store_conflicts_per_request || '|' || median_ns "
                  "|| '|' || round(bandwidth_gbps, 3) || '|' || expectations_failed FROM results WHERE seq = 0"),
            "1|transpose|NVIDIA H100 80GB HBM3|0|transpose/naive|{\"n\":1024}|ok|32768.0|1.25|0.5|1024.0|32.0|31.0|"
            "12340.0|679.79|1");
  EXPECT_EQ(value("SELECT status || '|' || ifnull(load_requests, 'NULL') || '|' || ifnull(median_ns, 'NULL') || "
                  "'|' || expectations_failed FROM results WHERE seq = 1"),
            "unsupported|NULL|NULL|0");
  EXPECT_EQ(count("results"), 2);
  EXPECT_EQ(count("metrics_long"), 14);
  EXPECT_EQ(value("SELECT run_id || '|' || gpu_name || '|' || variant || '|' || launch_index || '|' || metric || "
                  "'|' || unit || '|' || value FROM metrics_long LIMIT 1"),
            "1|NVIDIA H100 80GB HBM3|transpose/naive|0|load_conflicts_per_request|ratio|0.5");
}

TEST_F(store_writer, runs_are_listed_newest_first) {
  EXPECT_FALSE(m_db->latest_run_id().has_value());
  EXPECT_TRUE(m_db->runs().empty());
  const auto gpu = m_db->upsert_gpu(test_gpu());
  const auto first = m_db->begin_run(gpu, test_run());
  auto r = test_run();
  r.experiment_name = "second";
  const auto second = m_db->begin_run(gpu, r);
  m_db->finish_run(first, bb::run_status::interrupted);
  EXPECT_EQ(m_db->latest_run_id(), second);
  const auto runs = m_db->runs();
  ASSERT_EQ(runs.size(), 2U);
  EXPECT_EQ(runs[0].id, second);
  EXPECT_EQ(runs[0].status, bb::run_status::running);
  EXPECT_EQ(runs[1].status, bb::run_status::interrupted);
  EXPECT_EQ(m_db->gpus()[0].runs, 2);
}

TEST_F(store_writer, a_second_writer_on_the_same_file_waits_its_turn) {
  auto other = database::open(m_db->path());
  const auto run = m_db->begin_run(m_db->upsert_gpu(test_gpu()), test_run());
  m_db->add_configuration(run, measured_configuration());
  other.add_configuration(run, failed_configuration());
  EXPECT_EQ(other.configurations(run).size(), 2U);
  EXPECT_EQ(m_db->configurations(run).size(), 2U);
}

} // namespace

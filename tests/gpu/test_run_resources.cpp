// What `run` records about the machine as it measures: per-sample clocks and throttle marks,
// host and device memory per configuration, and the launch-once mode Nsight Compute targets.
#include <sqlite3.h>

#include <string>
#include <vector>

#include "../cli/cli_db.hpp"
#include "gpu_test_util.hpp"

namespace {

using bb::test::run_cli;
using bb::test::temp_dir;

using bb::test::query_column;

std::string first_row(const std::string& db_path, const std::string& sql) {
  const auto rows = query_column(db_path, sql);
  return rows.empty() ? "<no row>" : rows.front();
}

TEST(gpu_run_resources, every_sample_carries_its_clock_and_configurations_their_memory) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "r.sqlite").string();
  const auto r = run_cli("--db '" + db + "' run --samples 7 experiments/transpose/transpose.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(first_row(db, "select count(*) from timing_samples"), "63"); // 9 configurations x 7 samples
  EXPECT_EQ(first_row(db, "select count(*) from timing_samples where sm_clock_mhz > 0"), "63");
  EXPECT_EQ(first_row(db, "select count(*) from timings where throttled_samples = "
                          "(select count(*) from timing_samples s where s.configuration_id = timings.configuration_id "
                          "and s.throttled = 1)"),
            "9");
  EXPECT_EQ(first_row(db,
                      "select count(*) from configurations where host_rss_peak_bytes > 0 and device_used_bytes > 0"),
            "9");
  // Kernels of a few microseconds are timed in batches that fill 200 us: as many launches as a
  // sample needs to last that long (from a probe batch, so within a factor of two of it) and no more.
  EXPECT_GT(std::stoi(first_row(db, "select min(t.launches_per_sample) from timings t join configurations c on "
                                    "c.id = t.configuration_id where json_extract(c.params_json, '$.n') = 1024")),
            3);
  EXPECT_EQ(first_row(db, "select count(*) from timings where launches_per_sample < 64 and "
                          "launches_per_sample * median_ns < 100e3"),
            "0");
  EXPECT_EQ(first_row(db, "select count(*) from timings where launches_per_sample > 1 and "
                          "(launches_per_sample - 1) * median_ns > 400e3"),
            "0");
  // The transpose run holds no input on the host: far under the suite's 500 MB budget.
  EXPECT_LT(std::stod(first_row(db, "select max(host_rss_peak_bytes) from configurations")), 500e6);
  EXPECT_NE(r.err.find("resources: peak host memory"), std::string::npos) << r.err;
}

TEST(gpu_run_resources, min_sample_us_sets_the_launches_per_sample) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "batch.sqlite").string();
  // A sample of at least 1 us is one launch of any kernel; the same kernels batched into 200 us
  // samples (the default) take several launches each, the 1024 x 1024 ones more than 3.
  auto r = run_cli("--db '" + db +
                   "' -q run --no-counters --samples 3 --min-sample-us 1 experiments/transpose/transpose.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(first_row(db, "select count(*) || ' ' || max(launches_per_sample) from timings"), "9 1");
  r = run_cli("--db '" + db + "' -q run --no-counters --samples 3 experiments/transpose/transpose.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(std::stoi(first_row(db, "select min(t.launches_per_sample) from timings t join configurations c on "
                                    "c.id = t.configuration_id where c.run_id = (select max(id) from runs) and "
                                    "json_extract(c.params_json, '$.n') = 1024")),
            3);
}

TEST(gpu_run_resources, launch_once_launches_verifies_and_stores_no_counters_or_timings) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "once.sqlite").string();
  const auto r = run_cli("--db '" + db + "' -q run --launch-once --no-isolation experiments/transpose/transpose.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(first_row(db, "select group_concat(status || ':' || (verified_elements > 0), ' ') from configurations"),
            "ok:1 ok:1 ok:1 ok:1 ok:1 ok:1 ok:1 ok:1 ok:1");
  EXPECT_EQ(first_row(db, "select count(*) from metrics where derived = 0"), "0");
  EXPECT_EQ(first_row(db, "select count(*) from timings"), "0");
  EXPECT_EQ(first_row(db, "select metric_set || ' ' || warmup || ' ' || samples from runs"), "none 0 0");
}

TEST(gpu_run_resources, device_memory_does_not_grow_over_1009_configurations) {
  BB_REQUIRE_GPU();
  temp_dir tmp;
  const std::string db = (tmp.path / "k.sqlite").string();
  const auto r = run_cli("--db '" + db + "' -q run '" BB_SOURCE_DIR "/tests/data/gpu/thousand.yaml'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(first_row(db, "select count(*) from configurations where status = 'ok'"), "1009") << r.err;
  // Kernels load lazily on first use, so the first configurations of each variant may add code;
  // from the 100th on, what stays allocated must not move.
  const auto settled = std::stod(first_row(db, "select device_used_bytes from configurations where seq = 99"));
  const auto most = std::stod(first_row(db, "select max(device_used_bytes) from configurations where seq >= 99"));
  const auto last = std::stod(first_row(db, "select device_used_bytes from configurations where seq = 1008"));
  EXPECT_LE(most - settled, 2.0 * 1024 * 1024) << "settled " << settled << ", most " << most;
  EXPECT_LE(last - settled, 2.0 * 1024 * 1024) << "settled " << settled << ", last " << last;
  std::printf("device memory in use after configuration 100: %.1f MiB, most after it: %.1f MiB, last: %.1f MiB\n",
              settled / 1048576, most / 1048576, last / 1048576);
  // The buffer pool (the default allocator) keeps what the configurations gave back mapped, which
  // device_used_bytes leaves out: it must not grow either once the first groups have run.
  const auto pool_settled = std::stod(first_row(db, "select pool_reserved_bytes from configurations where seq = 99"));
  const auto pool_most = std::stod(
      first_row(db, "select max(pool_reserved_bytes) from configurations where seq >= 99"));
  EXPECT_GT(pool_settled, 0);
  EXPECT_EQ(first_row(db, "select count(*) from configurations where pool_reserved_bytes is null"), "0");
  EXPECT_LE(pool_most - pool_settled, 2.0 * 1024 * 1024) << "settled " << pool_settled << ", most " << pool_most;
  std::printf("buffer pool after configuration 100: %.1f MiB, most after it: %.1f MiB\n", pool_settled / 1048576,
              pool_most / 1048576);
}

} // namespace

// The regression gate on a database cut from real runs: four sessions of the default suite on an
// H100 (driver 580.159.04, CUDA 13.0, 2026-11-24, bench/regress_noise.py), the transpose experiment
// kept. Unchanged code must never regress, with the baseline alone or among its repeats; planted
// changes of the size a user acts on must always.
#include <gtest/gtest.h>

#include <filesystem>

#include "../data/results/test_helpers.hpp"
#include "runner/query/noise.hpp"
#include "runner/query/regress.hpp"
#include "runner/query/selector.hpp"
#include "runner/store/database.hpp"

namespace {

using namespace bb::query;
using namespace bb::test::results;
namespace fs = std::filesystem;

const std::string k_fixture = std::string(BB_TEST_DATA) + "/regress/h100-4-sessions-transpose.sqlite";

/// Judges session `c` against session `b` as `bankbench regress` does with its default options.
regress_result judge(const std::string& path, int b, int c) {
  const auto db = bb::store::database::open_existing(path);
  const bb::store::result_query q{{}, true};
  const side candidate = select_side(db, "session:" + std::to_string(c), q);
  const side baseline = select_side(db, "session:" + std::to_string(b), q, &candidate);
  std::set<std::pair<std::string, std::string>> scope;
  std::set<std::int64_t> exclude;
  for (const auto& r : candidate.rows) scope.insert({r.experiment, r.arch});
  for (const auto& r : candidate.runs) exclude.insert(r.id);
  regress_options o;
  o.metrics = regress_metrics_of(candidate.rows);
  repeat_table repeats;
  const auto noise = learn_noise(db, scope, exclude, o.metrics, 50, &repeats);
  return regress(baseline, candidate, noise, o, repeats);
}

std::string copy_of_fixture(temp_folder& tmp, const std::string& name) {
  const std::string path = tmp.file(name);
  fs::copy_file(k_fixture, path);
  return path;
}

TEST(query_regress_fixture, unchanged_code_never_regresses_in_any_order) {
  temp_folder tmp;
  const std::string all = copy_of_fixture(tmp, "all.sqlite");
  for (int b = 1; b <= 4; ++b)
    for (int c = 1; c <= 4; ++c) {
      if (b == c) continue;
      // Among the other sessions, which are repeats of the same build and commit.
      const auto several = judge(all, b, c);
      EXPECT_EQ(several.compared, 9) << b << " -> " << c;
      EXPECT_EQ(several.gated(), 0U) << b << " -> " << c;
      // The baseline run alone: nothing learned about noise.
      const std::string pair = tmp.file("pair" + std::to_string(b) + std::to_string(c) + ".sqlite");
      fs::copy_file(k_fixture, pair);
      exec(pair, "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE session_id NOT IN (" + std::to_string(b) + ", " +
                     std::to_string(c) + ")");
      EXPECT_EQ(judge(pair, b, c).gated(), 0U) << b << " -> " << c << " alone";
    }
}

TEST(query_regress_fixture, the_runs_are_repeats_and_their_noise_is_below_the_minimum_effect) {
  temp_folder tmp;
  const std::string path = copy_of_fixture(tmp, "f.sqlite");
  // One fingerprint for all four runs: the same build, experiment and options.
  EXPECT_EQ(scalar(path, "SELECT count(DISTINCT fingerprint) || ' ' || count(*) FROM runs"), "1 4");
  // The largest spread of any configuration's load wavefronts per request over the four runs.
  const double spread = std::stod(
      scalar(path, "SELECT max(hi - lo) FROM (SELECT c.variant, c.params_json, max(v) AS hi, min(v) AS lo FROM ("
                   "SELECT configuration_id, avg(value) AS v FROM metrics WHERE name = 'load_wavefronts_per_request' "
                   "GROUP BY configuration_id) m JOIN configurations c ON c.id = m.configuration_id "
                   "GROUP BY c.variant, c.params_json)"));
  EXPECT_GT(spread, 0.0);      // arbitration noise is there...
  EXPECT_LT(spread, 0.05 / 2); // ...and below even a tightened allowance
}

TEST(query_regress_fixture, planted_changes_are_caught_and_named) {
  temp_folder tmp;
  const std::string path = copy_of_fixture(tmp, "planted.sqlite");
  // +0.1 wavefronts per request where transpose is conflict-free (padded, n = 1024: 1.00), +3 %
  // where it is 32-way (naive, n = 8192: 32.45), in session 4 only.
  const std::string in_session_4 =
      "configuration_id IN (SELECT c.id FROM configurations c JOIN runs r ON r.id = c.run_id WHERE r.session_id = 4 "
      "AND c.variant = '{}' AND json_extract(c.params_json, '$.n') = {})";
  auto where = [&](const std::string& variant, int n) {
    std::string s = in_session_4;
    s.replace(s.find("{}"), 2, variant);
    s.replace(s.find("{}"), 2, std::to_string(n));
    return s;
  };
  exec(path, "UPDATE metrics SET value = value + 0.1 WHERE name = 'load_wavefronts_per_request' AND " +
                 where("transpose/padded", 1024));
  exec(path, "UPDATE metrics SET value = value * 1.03 WHERE name = 'load_wavefronts_per_request' AND " +
                 where("transpose/naive", 8192));
  for (int baseline : {1, 2, 3}) {
    const auto r = judge(path, baseline, 4);
    ASSERT_EQ(r.gated(), 2U) << "baseline session " << baseline;
    std::set<std::string> named;
    for (const auto& f : r.findings)
      if (f.gated) named.insert(f.variant + " " + f.params_json + " " + f.metric);
    EXPECT_EQ(named.count("transpose/padded {\"block_rows\":8,\"n\":1024,\"tile\":32,\"type\":\"float\"} "
                          "load_wavefronts_per_request"),
              1U);
    EXPECT_EQ(named.count("transpose/naive {\"block_rows\":8,\"n\":8192,\"tile\":32,\"type\":\"float\"} "
                          "load_wavefronts_per_request"),
              1U);
  }
}

} // namespace

namespace {

// A database of schema version 1 (bankbench 0.1.0), three runs: two of one clean commit and
// experiment text, and one more; opening migrates it, and the gate judges its runs as it judges
// new ones (old runs have no fingerprint: they pool by clean commit and experiment text).
TEST(query_regress_fixture, a_database_from_before_sessions_migrates_and_judges) {
  temp_folder tmp;
  const std::string path = tmp.file("v1.sqlite");
  exec(path, read_file(std::string(BB_TEST_DATA) + "/results/store_v1.sql"));
  exec(path, R"(
    INSERT INTO gpus (uuid, backend, name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, sm_clock_max_mhz,
                      mem_clock_max_mhz, cuda_driver_version, cuda_runtime_version, first_seen_at)
      VALUES ('GPU-1', 'cupti', 'NVIDIA H200', 9, 0, 132, 1, 1, 1980, 3201, 13000, 13000, '2026-11-01T09:00:00.000Z');
    INSERT INTO runs (gpu_id, started_at, status, git_commit, bankbench_version, experiment_name, experiment_path,
                      experiment_text, experiment_sha256, command_line, metrics_json, seed, warmup, samples) VALUES
      (1, '2026-11-01T10:00:00.000Z', 'completed', 'abc', '0.1.0', 'transpose', 'x.yaml', 'name: x', 'ff', 'r', '[]', 1, 1, 1),
      (1, '2026-11-01T11:00:00.000Z', 'completed', 'abc', '0.1.0', 'transpose', 'x.yaml', 'name: x', 'ff', 'r', '[]', 1, 1, 1),
      (1, '2026-11-02T10:00:00.000Z', 'completed', 'def', '0.1.0', 'transpose', 'x.yaml', 'name: x', 'ff', 'r', '[]', 1, 1, 1);
    INSERT INTO configurations (run_id, seq, variant, family, params_json, status, smem_access_bytes) VALUES
      (1, 0, 'transpose/padded', 'transpose', '{"n":4096}', 'ok', 4),
      (2, 0, 'transpose/padded', 'transpose', '{"n":4096}', 'ok', 4),
      (3, 0, 'transpose/padded', 'transpose', '{"n":4096}', 'ok', 4);
    INSERT INTO metrics VALUES (1, 'load_wavefronts_per_request', 0, 'ratio', 1.117, 1),
                               (2, 'load_wavefronts_per_request', 0, 'ratio', 1.119, 1),
                               (3, 'load_wavefronts_per_request', 0, 'ratio', 1.217, 1);
  )");
  const auto db = bb::store::database::open_existing(path);
  EXPECT_EQ(db.user_version(), 9);
  const bb::store::result_query q{{}, true};
  const auto runs = bb::store::run_infos(db);
  ASSERT_EQ(runs.size(), 3U);
  EXPECT_EQ(repeat_group(runs[0]), repeat_group(runs[1]));
  EXPECT_NE(repeat_group(runs[0]), repeat_group(runs[2]));
  // latest is the newest run alone: runs from before sessions are sessions of their own.
  EXPECT_EQ(select_side(db, "latest", q).runs.size(), 1U);
  regress_options o;
  const auto same = regress(select_side(db, "1", q), select_side(db, "2", q), {}, o);
  EXPECT_EQ(same.judged, 1);
  EXPECT_EQ(same.gated(), 0U);
  const auto worse = regress(select_side(db, "commit:abc", q), select_side(db, "commit:def", q), {}, o);
  ASSERT_EQ(worse.gated(), 1U); // +0.1 wavefronts per request
  EXPECT_EQ(worse.findings[0].metric, "load_wavefronts_per_request");
}

} // namespace

// Noise from repeated runs: runs at one clean commit, per configuration, architecture and metric.
#include <gtest/gtest.h>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "runner/query/noise.hpp"
#include "runner/query/side.hpp"

namespace {

using namespace bb::query;
using namespace bb::test::results;
using bb::store::result_row;
using bb::store::run_info;

run_info run(std::int64_t id, const std::string& commit, bool dirty = false) {
  run_info r;
  r.id = id;
  r.git_commit = commit;
  r.git_dirty = dirty;
  r.arch = "sm_90";
  return r;
}

result_row measured(std::int64_t run_id, double value) {
  result_row r;
  r.run_id = run_id;
  r.experiment = "transpose";
  r.variant = "transpose/padded";
  r.params_json = "{\"n\":4096}";
  r.arch = "sm_90";
  r.status = bb::config_status::ok;
  r.metrics["load_conflicts_per_request"] = {value, value, value, 3};
  return r;
}

TEST(query_noise, runs_at_one_commit_make_the_noise_other_commits_do_not) {
  const std::vector<run_info> runs = {run(1, "aaa"), run(2, "aaa"), run(3, "bbb"), run(4, "ccc", true),
                                      run(5, "ccc", true)};
  // 1 and 2 repeat one commit (1 % apart); 3 is another commit (a real change); 4 and 5 are dirty.
  const std::vector<result_row> rows = {measured(1, 1.00), measured(2, 1.01), measured(3, 2.0), measured(4, 1.0),
                                        measured(5, 3.0)};
  const auto noise = noise_of_runs(runs, rows, {"load_conflicts_per_request"});
  ASSERT_EQ(noise.size(), 1U);
  EXPECT_NEAR(noise.at(noise_key(rows[0], "load_conflicts_per_request")), 0.01 / 1.005, 1e-12);
}

TEST(query_noise, launches_of_any_run_count_even_without_a_commit) {
  const std::vector<run_info> runs = {run(1, "", true)};
  auto r = measured(1, 1.0);
  r.metrics["load_conflicts_per_request"] = {1.0, 0.99, 1.01, 3};
  const auto noise = noise_of_runs(runs, {r}, {"load_conflicts_per_request"});
  EXPECT_NEAR(noise.at(noise_key(r, "load_conflicts_per_request")), 0.02, 1e-12);
}

TEST(query_noise, history_leaves_out_the_candidate) {
  temp_folder tmp;
  build_fixture(tmp.file("f.sqlite"));
  const auto db = bb::store::database::open_existing(tmp.file("f.sqlite"));
  const std::vector<std::string> metrics = {"load_conflicts_per_request"};
  const auto key = noise_key(measured(0, 0), "load_conflicts_per_request"); // padded n=4096 on sm_90
  // Run 1's launches (61512, 61625, 62061 conflicts) are 0.89 % apart, run 5's 0.91 %.
  EXPECT_NEAR(learn_noise(db, {{"transpose", "sm_90"}}, {5, 6}, metrics).at(key), 0.00889, 1e-5);
  EXPECT_NEAR(learn_noise(db, {{"transpose", "sm_90"}}, {6}, metrics).at(key), 0.00908, 1e-5);
  // Naive conflicts are exactly 31 on every launch of every run: no noise at all.
  auto naive = measured(0, 0);
  naive.variant = "transpose/naive";
  EXPECT_EQ(
      learn_noise(db, {{"transpose", "sm_90"}}, {6}, metrics).count(noise_key(naive, "load_conflicts_per_request")),
      0U);
}

} // namespace

namespace {

TEST(query_noise, runs_of_different_code_are_never_repeats) {
  auto fp = [](std::int64_t id, const std::string& commit, bool dirty, const std::string& fingerprint) {
    auto r = run(id, commit, dirty);
    r.fingerprint = fingerprint;
    return r;
  };
  // 1, 2, 3: one clean commit, one build. 4: the same commit and build, but a dirty tree (an
  // untracked file). 5: the same commit, a different build (an uncommitted kernel edit).
  const std::vector<run_info> runs = {fp(1, "aaa", false, "f1"), fp(2, "aaa", false, "f1"), fp(3, "aaa", false, "f1"),
                                      fp(4, "aaa", true, "f1"), fp(5, "aaa", true, "f2")};
  EXPECT_EQ(repeat_group(runs[0]), repeat_group(runs[2]));
  EXPECT_NE(repeat_group(runs[0]), repeat_group(runs[3])); // dirty is never noise for clean
  EXPECT_NE(repeat_group(runs[3]), repeat_group(runs[4])); // different builds never pool
  // Values as an H100 read: 1.117, 1.118, 1.119 for the clean runs; 1.5 for the edited build.
  const std::vector<result_row> rows = {measured(1, 1.117), measured(2, 1.118), measured(3, 1.119), measured(4, 1.5),
                                        measured(5, 3.0)};
  repeat_table repeats;
  const auto noise = noise_of_runs(runs, rows, {"load_conflicts_per_request"}, &repeats);
  const std::string key = noise_key(rows[0], "load_conflicts_per_request");
  EXPECT_NEAR(noise.at(key), (1.119 - 1.117) / 1.118, 1e-9);
  EXPECT_EQ(repeats.at(key), 3);
  // Runs from before fingerprints: clean commit and experiment text; dirty ones are nobody's repeats.
  EXPECT_EQ(repeat_group(run(6, "")), "");
  EXPECT_EQ(repeat_group(run(7, "aaa", true)), "");
  EXPECT_NE(repeat_group(run(8, "aaa")), "");
}

} // namespace

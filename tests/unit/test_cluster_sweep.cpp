// The sweep folder of `bankbench slurm`: task ranges, shell quoting, sbatch lines and the markers.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "../data/results/test_helpers.hpp"
#include "runner/cluster/sweep.hpp"
#include "runner/common/error.hpp"

namespace {

using namespace bb::cluster;
using bb::test::results::temp_folder;

std::string refusal(const std::string& text, int tasks) {
  try {
    sweep::parse_ranges(text, tasks, "--tasks");
  } catch (const bb::usage_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(cluster_sweep, ranges_are_written_and_read_as_sbatch_takes_them) {
  EXPECT_EQ(sweep::array_ranges({0, 1, 2, 3, 6, 8, 9}), "0-3,6,8-9");
  EXPECT_EQ(sweep::array_ranges({}), "");
  EXPECT_EQ(sweep::parse_ranges("0-3,6,8-9", 10, "--tasks"), (std::vector<int>{0, 1, 2, 3, 6, 8, 9}));
  EXPECT_EQ(sweep::parse_ranges("5,2-3,3", 10, "--tasks"), (std::vector<int>{2, 3, 5}));
  EXPECT_EQ(refusal("2,x", 10),
            "--tasks '2,x': 'x' is not a task number or range; expected task numbers from 0 to 9 such as 2,5-7");
  EXPECT_EQ(refusal("8-10", 10),
            "--tasks '8-10': '8-10' is outside the sweep's tasks; expected task numbers from 0 to 9 such as 2,5-7");
  EXPECT_EQ(refusal("3-1", 10),
            "--tasks '3-1': '3-1' is outside the sweep's tasks; expected task numbers from 0 to 9 such as 2,5-7");
  EXPECT_EQ(refusal("", 10),
            "--tasks '': '' is not a task number or range; expected task numbers from 0 to 9 such as 2,5-7");
}

TEST(cluster_sweep, shell_lines_quote_only_what_needs_it) {
  EXPECT_EQ(sweep::shell_line({"bankbench", "--db", "/a/b.sqlite", "run", "--shard", "1/4"}),
            "bankbench --db /a/b.sqlite run --shard 1/4");
  EXPECT_EQ(sweep::shell_line({"echo", "two words", "it's", ""}), "echo 'two words' 'it'\\''s' ''");
}

TEST(cluster_sweep, sbatch_lines_carry_the_options) {
  sweep::spec s;
  s.folder = "/shared/sweep";
  s.tasks = 8;
  s.throttle = 2;
  s.gres = "none";
  s.partition = "gpu";
  s.time_limit = "01:00:00";
  s.sbatch_args = {"--account=lab"};
  EXPECT_EQ(sweep::shell_line(sweep::array_command(s, {0, 1, 2, 5})),
            "sbatch --parsable --job-name=bankbench-sweep --array=0-2,5%2 --output=/shared/sweep/logs/task-%A_%a.out "
            "--partition=gpu --time=01:00:00 --account=lab /shared/sweep/task.sh");
  EXPECT_EQ(sweep::shell_line(sweep::merge_command(s, "100")),
            "sbatch --parsable --job-name=bankbench-merge --dependency=afterany:100 "
            "--output=/shared/sweep/logs/merge-%j.out --partition=gpu --account=lab /shared/sweep/merge.sh");
  EXPECT_EQ(sweep::shard_path(s, 3), "/shared/sweep/shards/shard-3.sqlite");
}

TEST(cluster_sweep, a_folder_is_made_once_read_back_and_scanned_from_its_markers) {
  temp_folder tmp;
  sweep::spec s;
  s.folder = tmp.file("sweep");
  s.tasks = 5;
  s.inputs = {"/e/transpose.yaml"};
  s.run_args = {"--backend", "model"};
  s.bankbench = "/usr/bin/bankbench";
  sweep::create(s);
  EXPECT_THROW(sweep::create(s), bb::usage_error);
  sweep::record_submission(s.folder, "100", "101", "0-4");
  sweep::set_time_limit(s.folder, "02:00:00");
  const auto back = sweep::load(s.folder);
  EXPECT_EQ(back.folder, s.folder);
  EXPECT_EQ(back.tasks, 5);
  EXPECT_EQ(back.inputs, s.inputs);
  EXPECT_EQ(back.run_args, s.run_args);
  EXPECT_EQ(back.gres, "gpu:1");
  EXPECT_EQ(back.time_limit, "02:00:00");
  EXPECT_EQ(back.array_jobs, (std::vector<std::string>{"100"}));

  auto put = [&](const std::string& name, const std::string& text) {
    std::ofstream(s.folder + "/markers/" + name) << text;
  };
  put("0.started", "job 100 task 0 host n1 gpus 0 started 2025-01-01T00:00:00Z\n");
  put("0.done", "1\n");
  put("1.started", "job 100 task 1 host n1 gpus 1 started 2025-01-01T00:00:00Z\n");
  put("1.failed", "5\n");
  put("2.started", "job 100 task 2 host n2 gpus 0 started 2025-01-01T00:00:00Z\n");
  put("2.stopped", "143\n");
  put("3.started", "job 102 task 3 host n2 gpus 1 started 2025-01-01T00:00:00Z\n");
  const auto tasks = sweep::scan(back);
  ASSERT_EQ(tasks.size(), 5U);
  EXPECT_EQ(tasks[0].state, sweep::task_state::done);
  EXPECT_EQ(tasks[0].exit_code, 1);
  EXPECT_EQ(tasks[0].job, "100");
  EXPECT_EQ(tasks[0].started, "job 100 task 0 host n1 gpus 0 started 2025-01-01T00:00:00Z");
  EXPECT_EQ(tasks[1].state, sweep::task_state::failed);
  EXPECT_EQ(tasks[1].exit_code, 5);
  EXPECT_EQ(tasks[2].state, sweep::task_state::stopped);
  EXPECT_EQ(tasks[2].exit_code, 143);
  EXPECT_EQ(tasks[3].state, sweep::task_state::unfinished);
  EXPECT_EQ(tasks[3].job, "102");
  EXPECT_EQ(tasks[3].exit_code, -1);
  EXPECT_EQ(tasks[4].state, sweep::task_state::never_ran);
  EXPECT_EQ(tasks[4].started, "");
}

TEST(cluster_sweep, a_folder_without_a_sound_sweep_json_is_refused_by_name) {
  temp_folder tmp;
  EXPECT_THROW(sweep::load(tmp.file("nowhere")), bb::usage_error);
  std::ofstream(tmp.file("sweep.json")) << R"({"format": 1, "tasks": "four"})";
  try {
    sweep::load(tmp.path().string());
    FAIL() << "accepted";
  } catch (const bb::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("key 'tasks' holds \"four\", of the wrong type"), std::string::npos)
        << e.what();
  }
}

} // namespace

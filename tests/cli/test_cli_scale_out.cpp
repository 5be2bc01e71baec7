// Many GPUs and many machines without a GPU: `run --shard`, `run --devices` over the model
// backend, and `bankbench slurm` with its task script run by hand and a stand-in sbatch (the real
// Slurm is tests/slurm/sweep_test.sh).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "../data/results/test_helpers.hpp"
#include "cli_runner.hpp"

namespace {

using bb::test::run_cli;
using bb::test::results::scalar;
using bb::test::results::temp_folder;

const std::string k_files = "experiments/transpose/transpose.yaml experiments/transpose/tiles.yaml";

std::vector<std::string> output_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string model(const std::string& db, const std::string& args, const std::string& env = "") {
  const auto r = run_cli("-q --db '" + db + "' run --backend model " + args, env);
  EXPECT_LE(r.exit_code, 0) << r.err;
  return r.err;
}

/// Each (experiment, variant, params) stored in `db`, with how often.
std::string duplicates(const std::string& db) {
  return scalar(db, "SELECT count(*) FROM (SELECT 1 FROM configurations c JOIN runs r ON r.id = c.run_id "
                    "GROUP BY r.experiment_name, c.variant, c.params_json HAVING count(*) > 1)");
}

} // namespace

TEST(cli_scale_out, dry_run_shares_list_every_configuration_once) {
  const auto all = output_lines(run_cli("run --dry-run " + k_files).out);
  ASSERT_EQ(all.size(), 45u);
  std::multiset<std::string> union_of_shares;
  for (int i = 0; i < 4; ++i) {
    const auto r = run_cli("run --dry-run --shard " + std::to_string(i) + "/4 " + k_files);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto mine = output_lines(r.out);
    EXPECT_GE(mine.size(), 10u);
    EXPECT_LE(mine.size(), 13u);
    union_of_shares.insert(mine.begin(), mine.end());
  }
  EXPECT_EQ(union_of_shares, std::multiset<std::string>(all.begin(), all.end()));
  // fnv1a("transpose") mod 4 = 0: share 1 of transpose.yaml holds its configurations 1 and 5
  const auto one = output_lines(run_cli("run --dry-run --shard 1/4 experiments/transpose/transpose.yaml").out);
  EXPECT_EQ(one, (std::vector<std::string>{
                     "experiments/transpose/transpose.yaml: transpose/naive block_rows=8 n=4096 tile=32 type=float",
                     "experiments/transpose/transpose.yaml: transpose/padded block_rows=8 n=8192 tile=32 type=float"}));
}

TEST(cli_scale_out, a_bad_share_is_a_usage_error) {
  const auto r = run_cli("run --dry-run --shard 4/4 " + k_files);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--shard '4/4': I must be between 0 and N-1"), std::string::npos) << r.err;
  const auto d = run_cli("run --backend model --devices 0,x " + k_files);
  EXPECT_EQ(d.exit_code, 2);
  EXPECT_NE(d.err.find("--devices '0,x': 'x' is not a device ordinal"), std::string::npos) << d.err;
  const auto twice = run_cli("run --backend model --devices 1,1 " + k_files);
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("device 1 is named twice"), std::string::npos) << twice.err;
}

TEST(cli_scale_out, a_run_records_its_share_slurm_task_and_visible_devices) {
  temp_folder tmp;
  const auto db = tmp.file("shard.sqlite");
  model(db, "--shard 2/4 " + k_files,
        "SLURM_JOB_ID=91 SLURM_ARRAY_JOB_ID=90 SLURM_ARRAY_TASK_ID=2 CUDA_VISIBLE_DEVICES=3");
  const auto expected = output_lines(run_cli("run --dry-run --shard 2/4 " + k_files).out).size();
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM configurations"), std::to_string(expected));
  EXPECT_EQ(scalar(db, "SELECT group_concat(DISTINCT slurm_job_id || ' ' || slurm_array_task_id || ' ' || "
                       "cuda_visible_devices || ' ' || shard) FROM runs"),
            "90 2 3 2/4"); // the array's job id, not the task's own
  const auto plain = tmp.file("plain.sqlite");
  model(plain, "experiments/transpose/transpose.yaml", "SLURM_JOB_ID=12 SLURM_ARRAY_JOB_ID= CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(scalar(plain, "SELECT slurm_job_id || '|' || coalesce(slurm_array_task_id, 'null') || '|' || "
                          "coalesce(shard, 'null') || '|' || coalesce(cuda_visible_devices, 'null') FROM runs"),
            "12|null|null|null");
}

TEST(cli_scale_out, resuming_a_share_completes_that_share_only) {
  temp_folder tmp;
  const auto db = tmp.file("resume.sqlite");
  model(db, "--shard 1/3 experiments/transpose/tiles.yaml");
  const std::string stored = scalar(db, "SELECT count(*) FROM configurations");
  ASSERT_GE(std::stoi(stored), 4);
  {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    // as if the run had been interrupted after its first two configurations
    const char* sql = "PRAGMA foreign_keys = ON; DELETE FROM configurations WHERE id NOT IN "
                      "(SELECT id FROM configurations ORDER BY seq LIMIT 2); UPDATE runs SET status = 'interrupted', "
                      "finished_at = NULL";
    ASSERT_EQ(sqlite3_exec(h, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
    sqlite3_close(h);
  }
  ASSERT_EQ(scalar(db, "SELECT count(*) FROM configurations"), "2");
  model(db, "--resume 1");
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM configurations"), stored);
  EXPECT_EQ(duplicates(db), "0");
  EXPECT_EQ(scalar(db, "SELECT status || ' ' || shard FROM runs"), "completed 1/3");
  const auto other = run_cli("-q --db '" + db + "' run --backend model --resume 1 --shard 0/3");
  EXPECT_EQ(other.exit_code, 2) << other.err;
}

TEST(cli_scale_out, devices_spread_the_configurations_over_one_database) {
  temp_folder tmp;
  const auto db = tmp.file("devices.sqlite");
  const auto r = run_cli("--db '" + db + "' run --backend model --devices 0,1,2 " + k_files);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM configurations"), "45");
  EXPECT_EQ(duplicates(db), "0");
  EXPECT_EQ(scalar(db, "SELECT group_concat(shard, ' ') FROM (SELECT DISTINCT shard FROM runs ORDER BY shard)"),
            "0/3 1/3 2/3");
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM runs WHERE status = 'completed'"), "6"); // 2 files x 3 devices
  EXPECT_NE(r.err.find("bankbench: [gpu 2] info: "), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("run 1 "), r.out.rfind("run 1 ")) << "a table printed twice: " << r.out;

  const auto by_variant = tmp.file("variant.sqlite");
  model(by_variant, "--devices 0,1 --spread variant experiments/transpose/tiles.yaml");
  EXPECT_EQ(scalar(by_variant, "SELECT count(*) FROM configurations"), "36");
  EXPECT_EQ(scalar(by_variant, "SELECT count(*) FROM (SELECT variant FROM configurations c JOIN runs r ON "
                               "r.id = c.run_id GROUP BY variant HAVING count(DISTINCT r.id) > 1)"),
            "0")
      << "a variant's sizes spread over two devices";

  const auto many = tmp.file("many.sqlite"); // more devices than configurations: no empty runs
  model(many, "--devices 0,1,2,3,4,5,6,7,8,9,10,11 experiments/transpose/transpose.yaml");
  EXPECT_EQ(scalar(many, "SELECT count(*) || ' ' || count(DISTINCT run_id) FROM configurations"), "9 9");
  EXPECT_EQ(scalar(many, "SELECT count(*) FROM runs"), "9");

  const auto one = tmp.file("one.sqlite");
  model(one, "--devices 1 experiments/transpose/transpose.yaml");
  EXPECT_EQ(scalar(one, "SELECT count(*) || ' ' || coalesce(max(r.shard), 'none') FROM configurations c JOIN runs r "
                        "ON r.id = c.run_id"),
            "9 none"); // one device: a plain run
}

TEST(cli_scale_out, devices_run_in_one_session_owned_by_the_run_process) {
  temp_folder tmp;
  const auto db = tmp.file("owned.sqlite");
  const auto r = run_cli("--db '" + db + "' run --backend model --devices 0,1 experiments/transpose/transpose.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One session row, begun by the run process (its pid), holding both devices' runs.
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM sessions"), "1");
  EXPECT_EQ(scalar(db, "SELECT count(DISTINCT session_id) || ' ' || count(*) FROM runs"), "1 2");
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM runs r JOIN sessions s ON s.id = r.session_id WHERE r.pid = s.pid"), "0")
      << "the runs are the workers', the session the run process's";
  // The tables and the one summary line come from the run process, once each.
  EXPECT_EQ(r.out.find("run 1: transpose"), r.out.rfind("run 1: transpose")) << r.out;
  EXPECT_NE(r.out.find("run 2: transpose"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("bankbench: session 1:"), r.err.rfind("bankbench: session 1:")) << r.err;
  EXPECT_NE(r.err.find("GPU 1: ended with exit code 0"), std::string::npos) << r.err;
}

TEST(cli_scale_out, devices_without_a_gpu_write_no_database) {
  temp_folder tmp;
  const auto db = tmp.file("none.sqlite");
  // Each worker fails to open its GPU: the session row is begun only once a worker has one.
  const auto r = run_cli("--db '" + db + "' run --devices 0,1 experiments/transpose/transpose.yaml",
                         "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("[gpu 1] error:"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db)) << r.err;
}

TEST(cli_scale_out, a_sweep_by_hand_reports_collects_and_resubmits) {
  temp_folder tmp;
  namespace fs = std::filesystem;
  // A stand-in sbatch: logs its arguments and answers job ids 100, 101, ...
  fs::create_directories(tmp.path() / "bin");
  {
    std::ofstream sb(tmp.file("bin/sbatch"));
    sb << "#!/bin/sh\necho \"$@\" >> '" << tmp.file("sbatch.log") << "'\n"
       << "n=$(wc -l < '" << tmp.file("sbatch.log") << "')\necho $((99 + n))\n";
  }
  fs::permissions(tmp.file("bin/sbatch"), fs::perms::owner_all);
  { // and a stand-in squeue: task 2 of job 100 waits in the queue while the file "queued" is there
    std::ofstream sq(tmp.file("bin/squeue"));
    sq << "#!/bin/sh\n[ -e '" << tmp.file("queued")
       << "' ] && [ \"$4\" = --jobs=100 ] && echo '100_2|PENDING'\nexit 0\n";
  }
  fs::permissions(tmp.file("bin/squeue"), fs::perms::owner_all);
  const std::string env = "PATH='" + tmp.file("bin") + "':\"$PATH\"";
  const auto sweep = tmp.file("sweep");
  const auto submit = run_cli("slurm submit --sweep '" + sweep +
                                  "' --tasks 4 --throttle 2 --gres gpu:a100:1 -p gpu "
                                  "--sbatch-option=--account=lab --backend model " +
                                  k_files,
                              env);
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  EXPECT_NE(submit.out.find("submitted array job 100 (tasks 0-3) and merge job 101 (afterany:100)"), std::string::npos)
      << submit.out;
  const auto log = output_lines(bb::test::slurp(tmp.file("sbatch.log")));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0], "--parsable --job-name=bankbench-sweep --array=0-3%2 --output=" + sweep +
                        "/logs/task-%A_%a.out --gres=gpu:a100:1 --partition=gpu --account=lab " + sweep + "/task.sh");
  EXPECT_EQ(log[1], "--parsable --job-name=bankbench-merge --dependency=afterany:100 --output=" + sweep +
                        "/logs/merge-%j.out --partition=gpu --account=lab " + sweep + "/merge.sh");

  auto task = [&](int i) {
    const int rc = std::system(("SLURM_ARRAY_TASK_ID=" + std::to_string(i) + " SLURM_ARRAY_JOB_ID=100 bash '" + sweep +
                                "/task.sh' >/dev/null 2>&1")
                                   .c_str());
    ASSERT_EQ(rc, 0) << "task " << i;
  };
  task(0);
  task(1);
  task(3);
  std::ofstream(tmp.file("queued")) << "";
  const auto waiting = run_cli("slurm status '" + sweep + "'", env);
  EXPECT_EQ(waiting.exit_code, 1) << waiting.err;
  EXPECT_NE(waiting.out.find("\n    2  pending        -  -\n"), std::string::npos) << waiting.out;
  EXPECT_NE(waiting.out.find("\n3 of 4 done; in Slurm's queue: 2\n"), std::string::npos) << waiting.out;
  EXPECT_EQ(waiting.out.find("slurm resubmit"), std::string::npos)
      << "a queued task is not to run twice: " << waiting.out;
  const auto not_yet = run_cli("slurm resubmit '" + sweep + "'", env);
  EXPECT_EQ(not_yet.exit_code, 0) << not_yet.err;
  EXPECT_NE(not_yet.out.find("nothing to resubmit"), std::string::npos) << not_yet.out;
  fs::remove(tmp.file("queued"));
  const auto status = run_cli("slurm status '" + sweep + "'", env);
  EXPECT_EQ(status.exit_code, 1) << status.err;
  EXPECT_NE(status.out.find("    2  never ran"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("    1  done           0  job 100 task 1 host "), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("3 of 4 done; not done: 2 "), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("\n  bankbench slurm resubmit " + sweep + " --tasks 2\n"), std::string::npos) << status.out;

  const auto merged = sweep + "/merged.sqlite";
  const auto first = run_cli("-q slurm collect '" + sweep + "'");
  EXPECT_EQ(first.exit_code, 1) << first.err;
  const auto without_2 = std::stoi(scalar(merged, "SELECT count(*) FROM configurations"));
  EXPECT_EQ(without_2, 45 - static_cast<int>(output_lines(run_cli("run --dry-run --shard 2/4 " + k_files).out).size()));

  const auto again = run_cli("slurm resubmit --time 02:00:00 '" + sweep + "'", env);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("submitted array job 102 (tasks 2) and merge job 103"), std::string::npos) << again.out;
  EXPECT_NE(bb::test::slurp(tmp.file("sbatch.log")).find(" --array=2%2 "), std::string::npos);
  const auto resubmitted = output_lines(bb::test::slurp(tmp.file("sbatch.log")));
  ASSERT_EQ(resubmitted.size(), 4u);
  EXPECT_NE(resubmitted[2].find(" --time=02:00:00 "), std::string::npos) << resubmitted[2];
  EXPECT_EQ(resubmitted[3].find("--time"), std::string::npos)
      << "the merge job got the tasks' limit: " << resubmitted[3];
  EXPECT_NE(bb::test::slurp(sweep + "/sweep.json").find("\"time_limit\": \"02:00:00\""), std::string::npos)
      << "later resubmits would not keep the new limit";
  task(2);
  task(2); // a task run twice replaces its shard
  const auto done = run_cli("-q slurm collect '" + sweep + "'");
  EXPECT_EQ(done.exit_code, 0) << done.out << done.err;
  EXPECT_EQ(scalar(merged, "SELECT count(*) FROM configurations"), "45");
  EXPECT_EQ(duplicates(merged), "0");
  EXPECT_EQ(scalar(merged, "SELECT group_concat(DISTINCT shard) FROM (SELECT shard FROM runs ORDER BY shard)"),
            "0/4,1/4,2/4,3/4");

  const auto nothing = run_cli("slurm status '" + tmp.file("nowhere") + "'");
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_NE(nothing.err.find("no sweep.json here"), std::string::npos) << nothing.err;
  const auto twice = run_cli("slurm submit --sweep '" + sweep + "' --tasks 2 --backend model " + k_files, env);
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("already holds a sweep"), std::string::npos) << twice.err;
}

// sbatch refusing the array job (a bad partition, no allocation) leaves no sweep behind: the folder
// is as it was, and the same submit works once sbatch does (it was refused: "already holds a sweep").
TEST(cli_scale_out, a_refused_submission_leaves_no_sweep_behind) {
  temp_folder tmp;
  namespace fs = std::filesystem;
  fs::create_directories(tmp.path() / "bin");
  {
    std::ofstream sb(tmp.file("bin/sbatch"));
    sb << "#!/bin/sh\n[ -e '" << tmp.file("refuse")
       << "' ] && { echo 'sbatch: error: invalid partition specified: gpu' >&2; exit 1; }\necho 300\n";
  }
  fs::permissions(tmp.file("bin/sbatch"), fs::perms::owner_all);
  std::ofstream(tmp.file("refuse")) << "";
  const std::string env = "PATH='" + tmp.file("bin") + "':\"$PATH\"";
  const auto sweep = tmp.file("sweep");
  const std::string args = "slurm submit --sweep '" + sweep + "' --tasks 2 -p gpu --backend model " + k_files;
  const auto refused = run_cli(args, env);
  EXPECT_EQ(refused.exit_code, 3) << refused.err;
  EXPECT_NE(refused.err.find("sbatch: error: invalid partition specified: gpu\nbankbench: error: sbatch failed (exit "
                             "code 1); its message is above\n  the command was: sbatch --parsable"),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(sweep)); // made by the submit, and removed with what it held

  fs::create_directories(tmp.path() / "mine"); // a folder of the user's keeps what was there
  std::ofstream(tmp.file("mine/notes.txt")) << "kept\n";
  const std::string into_mine = "slurm submit --sweep '" + tmp.file("mine") + "' --tasks 2 --backend model " + k_files;
  EXPECT_EQ(run_cli(into_mine, env).exit_code, 3);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(tmp.path() / "mine")) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"notes.txt"});

  fs::remove(tmp.file("refuse"));
  const auto submitted = run_cli(args, env);
  EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
  EXPECT_NE(submitted.out.find("submitted array job 300"), std::string::npos) << submitted.out;
  EXPECT_TRUE(fs::exists(sweep + "/sweep.json"));
}

// sbatch taking the job array and refusing the merge job: the queued tasks are recorded, so status
// follows them, and the message says how to merge by hand.
TEST(cli_scale_out, a_refused_merge_job_leaves_the_queued_array_recorded) {
  temp_folder tmp;
  namespace fs = std::filesystem;
  fs::create_directories(tmp.path() / "bin");
  {
    std::ofstream sb(tmp.file("bin/sbatch"));
    sb << "#!/bin/sh\ncase \"$*\" in *--dependency*) echo 'sbatch: error: QOSMaxSubmitJobPerUserLimit' >&2; exit 1;; "
          "esac\necho 400\n";
  }
  fs::permissions(tmp.file("bin/sbatch"), fs::perms::owner_all);
  const std::string env = "PATH='" + tmp.file("bin") + "':\"$PATH\"";
  const auto sweep = tmp.file("sweep");
  const auto r = run_cli("slurm submit --sweep '" + sweep + "' --tasks 2 --backend model " + k_files, env);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("the array job 400 (tasks 0-1) is queued and recorded in " + sweep +
                       "; once it ends, "
                       "`bankbench slurm collect " +
                       sweep + "` merges its databases"),
            std::string::npos)
      << r.err;
  const std::string json = bb::test::slurp(sweep + "/sweep.json");
  EXPECT_NE(json.find("\"array_job\": \"400\""), std::string::npos) << json;
  const auto status = run_cli("slurm status '" + sweep + "'", env); // exit 1: not done yet
  EXPECT_EQ(status.exit_code, 1) << status.err;
  EXPECT_NE(status.out.find("0 of 2 done"), std::string::npos) << status.out;
}

TEST(cli_scale_out, a_signal_to_the_task_shell_reaches_bankbench_and_marks_the_task_stopped) {
  temp_folder tmp;
  namespace fs = std::filesystem;
  fs::create_directories(tmp.path() / "bin");
  {
    std::ofstream sb(tmp.file("bin/sbatch"));
    sb << "#!/bin/sh\necho 200\n";
  }
  fs::permissions(tmp.file("bin/sbatch"), fs::perms::owner_all);
  // The binary the tasks run: task 1 fails at once; task 0 runs until a SIGTERM, which it notes
  // and answers as bankbench does (exit 143).
  {
    std::ofstream bb(tmp.file("stand-in"));
    bb << "#!/bin/bash\n[ \"$SLURM_ARRAY_TASK_ID\" = 1 ] && exit 2\n"
       << "trap 'echo \"$@\" > \"" << tmp.file("got-term") << "\"; exit 143' TERM\n"
       << "touch '" << tmp.file("ready") << "'\nwhile :; do sleep 0.05; done\n";
  }
  fs::permissions(tmp.file("stand-in"), fs::perms::owner_all);
  const std::string env = "PATH='" + tmp.file("bin") + "':\"$PATH\"";
  const auto sweep = tmp.file("sweep");
  const auto submit = run_cli("slurm submit --sweep '" + sweep + "' --tasks 2 --backend model --bankbench '" +
                                  tmp.file("stand-in") + "' " + k_files,
                              env);
  ASSERT_EQ(submit.exit_code, 0) << submit.err;

  EXPECT_EQ(
      std::system(
          ("SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_JOB_ID=200 bash '" + sweep + "/task.sh' >/dev/null 2>&1").c_str()) >>
          8,
      2);
  // Task 0 in the background; its shell's pid, as Slurm would signal it (scancel --batch).
  FILE* p = popen(
      ("SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_JOB_ID=200 bash '" + sweep + "/task.sh' >/dev/null 2>&1 & echo $!").c_str(),
      "r");
  ASSERT_NE(p, nullptr);
  int shell = 0;
  ASSERT_EQ(std::fscanf(p, "%d", &shell), 1);
  pclose(p);
  auto wait_for = [](const std::string& path) {
    for (int i = 0; i < 200 && !fs::exists(path); ++i) std::system("sleep 0.05");
    return fs::exists(path);
  };
  ASSERT_TRUE(wait_for(tmp.file("ready")));
  ASSERT_EQ(kill(shell, SIGTERM), 0);
  ASSERT_TRUE(wait_for(sweep + "/markers/0.stopped")) << "no stopped marker after the SIGTERM";
  EXPECT_EQ(bb::test::slurp(sweep + "/markers/0.stopped"), "143\n");
  EXPECT_NE(bb::test::slurp(tmp.file("got-term")).find("run --shard 0/2 --backend model"), std::string::npos)
      << "the signal did not reach the task's bankbench";
  EXPECT_FALSE(fs::exists(sweep + "/markers/0.failed"));
  EXPECT_EQ(bb::test::slurp(sweep + "/markers/1.failed"), "2\n");

  const auto status = run_cli("slurm status '" + sweep + "'", env);
  EXPECT_EQ(status.exit_code, 1) << status.err;
  EXPECT_NE(status.out.find("\n    0  stopped      143  job 200 task 0 host "), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("\n    1  failed         2  job 200 task 1 host "), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("0 of 2 done; not done: 0-1 (failed: bankbench exited with an error, see the task's log; "
                            "stopped: a signal stopped bankbench (scancel, a time limit: resubmit --time sets a longer "
                            "one) after it stored what it finished)\n"),
            std::string::npos)
      << status.out;
  EXPECT_NE(status.out.find("\n  bankbench slurm resubmit " + sweep + " --tasks 0-1\n"), std::string::npos)
      << status.out;
}

TEST(cli_scale_out, a_resubmitted_task_waiting_in_the_queue_is_not_offered_again) {
  temp_folder tmp;
  namespace fs = std::filesystem;
  fs::create_directories(tmp.path() / "bin");
  { // job ids 300, 301, ...
    std::ofstream sb(tmp.file("bin/sbatch"));
    sb << "#!/bin/sh\necho x >> '" << tmp.file("sbatch.log") << "'\necho $((299 + $(wc -l < '" << tmp.file("sbatch.log")
       << "')))\n";
  }
  { // squeue lists the lines of the file "queue" that belong to the job asked for
    std::ofstream sq(tmp.file("bin/squeue"));
    sq << "#!/bin/sh\n[ -e '" << tmp.file("queue") << "' ] && grep \"^${4#--jobs=}_\" '" << tmp.file("queue")
       << "'\nexit 0\n";
  }
  {
    std::ofstream bb(tmp.file("stand-in"));
    bb << "#!/bin/sh\nexit 2\n";
  }
  for (const char* f : {"bin/sbatch", "bin/squeue", "stand-in"}) fs::permissions(tmp.file(f), fs::perms::owner_all);
  const std::string env = "PATH='" + tmp.file("bin") + "':\"$PATH\"";
  const auto sweep = tmp.file("sweep");
  ASSERT_EQ(run_cli("slurm submit --sweep '" + sweep + "' --tasks 1 --backend model --bankbench '" +
                        tmp.file("stand-in") + "' " + k_files,
                    env)
                .exit_code,
            0);
  ASSERT_EQ(
      std::system(
          ("SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_JOB_ID=300 bash '" + sweep + "/task.sh' >/dev/null 2>&1").c_str()) >>
          8,
      2);
  // The failed attempt's job still completing: its marker decides.
  std::ofstream(tmp.file("queue")) << "300_0|COMPLETING\n";
  const auto completing = run_cli("slurm status '" + sweep + "'", env);
  EXPECT_NE(completing.out.find("\n    0  failed         2  job 300 task 0 "), std::string::npos) << completing.out;
  EXPECT_NE(completing.out.find("slurm resubmit " + sweep + " --tasks 0"), std::string::npos) << completing.out;

  const auto again = run_cli("slurm resubmit '" + sweep + "'", env);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("submitted array job 302 (tasks 0)"), std::string::npos) << again.out;
  // The new attempt waits in the queue; the old one's failed marker is still there until it starts.
  std::ofstream(tmp.file("queue")) << "302_0|PENDING\n";
  const auto waiting = run_cli("slurm status '" + sweep + "'", env);
  EXPECT_EQ(waiting.exit_code, 1);
  EXPECT_NE(waiting.out.find("\n    0  pending        -  job 300 task 0 "), std::string::npos) << waiting.out;
  EXPECT_EQ(waiting.out.find("slurm resubmit"), std::string::npos) << "offered to run it twice: " << waiting.out;
  const auto twice = run_cli("slurm resubmit '" + sweep + "'", env);
  EXPECT_EQ(twice.exit_code, 0) << twice.err;
  EXPECT_NE(twice.out.find("nothing to resubmit"), std::string::npos) << twice.out;
  EXPECT_EQ(output_lines(bb::test::slurp(tmp.file("sbatch.log"))).size(), 4u) << "a third array was submitted";
}

TEST(cli_scale_out, a_damaged_sweep_json_is_refused_naming_the_file_the_key_and_a_fix) {
  temp_folder tmp;
  namespace fs = std::filesystem;
  const auto sweep = tmp.file("sweep");
  ASSERT_EQ(run_cli("slurm submit --print --sweep '" + sweep + "' --tasks 2 --backend model " + k_files).exit_code, 0);
  fs::create_directories(sweep + "/markers");
  const std::pair<const char*, const char*> cases[] = {
      {"{\"tasks\": 2,", "sweep.json: not valid JSON: parse error at line 1, column 13"},
      {"[]", "sweep.json: not a sweep description (no key 'tasks')"},
      {"{\"tasks\": \"four\"}", "sweep.json: key 'tasks' holds \"four\", of the wrong type"},
      {"{\"tasks\": 0}", "sweep.json: key 'tasks' is 0, expected 1 to 100000"},
      {"{\"tasks\": 2, \"inputs\": \"a.yaml\"}", "sweep.json: key 'inputs' holds \"a.yaml\", of the wrong type"},
      {"{\"tasks\": 2, \"submissions\": [{\"array_job\": 7}]}",
       "sweep.json: a submission without its array job id as a string: {\"array_job\":7}"},
      {"{\"format\": 2, \"tasks\": 2}", "sweep.json: format 2 (this bankbench reads format 1)"},
  };
  for (const auto& [text, message] : cases) {
    std::ofstream(sweep + "/sweep.json") << text;
    for (const char* command : {"status", "resubmit", "collect"}) {
      const auto r = run_cli(std::string("slurm ") + command + " '" + sweep + "'");
      EXPECT_EQ(r.exit_code, 2) << command << " on " << text << ": " << r.err;
      EXPECT_NE(r.err.find(message), std::string::npos) << command << " on " << text << ": " << r.err;
      if (std::string(message).find("format 2") == std::string::npos) {
        EXPECT_NE(r.err.find("restore it, or submit a new sweep"), std::string::npos) << r.err;
      }
    }
  }
  EXPECT_FALSE(fs::exists(sweep + "/merged.sqlite")) << "collect merged from a damaged sweep";
}

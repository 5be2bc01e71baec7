// `bankbench show`, `list runs` and `list gpus` output, matched whole against known text.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <unistd.h>

#include "runner/common/error.hpp"
#include "runner/query/list.hpp"
#include "runner/query/show.hpp"
#include "runner/store/database.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bb::store;
using bb::query::output_format;

launch_record launch(int index, double ld_wf, double st_wf, double st_conflicts) {
  return {index,
          {{"smsp__sass_inst_executed_op_shared_ld.sum", "inst", 32768, false},
           {"load_requests", "requests", 32768, true},
           {"load_wavefronts_per_request", "ratio", ld_wf, true},
           {"load_conflicts_per_request", "ratio", ld_wf - 1, true},
           {"store_wavefronts_per_request", "ratio", st_wf, true},
           {"store_conflicts_per_request", "ratio", st_conflicts, true}}};
}

timing_record timing(double median_ns, std::uint64_t bytes) {
  timing_record t = summarize_samples({median_ns - 100, median_ns, median_ns + 500});
  t.bandwidth_gbps = bandwidth_gbps(bytes, t.median_ns);
  return t;
}

/// A finished run of three configurations with round numbers: one with a failed expectation,
/// one that meets its expectations, one unsupported.
class query_show : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = fs::temp_directory_path() / ("bb_test_query_show_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(m_dir);
    m_db.emplace(database::open((m_dir / "bankbench.sqlite").string()));

    gpu_record g;
    g.uuid = "GPU-0001";
    g.name = "NVIDIA H100 80GB HBM3";
    g.chip = "GH100";
    g.cc_major = 9;
    g.sm_count = 132;
    g.memory_bytes = 85'899'345'920ULL; // 80 GiB
    g.l2_bytes = 52'428'800;            // 50 MiB
    g.driver_version = "580.159.04";
    g.cuda_driver_version = 13000;
    g.cuda_runtime_version = 13000;
    const auto gpu = m_db->upsert_gpu(g);

    run_record r;
    r.started_at = "2026-11-21T08:30:12.123Z";
    r.git_commit = "0123456789abcdef0123456789abcdef01234567";
    r.git_dirty = true;
    r.bankbench_version = "0.1.0";
    r.experiment_name = "transpose";
    r.experiment_path = "experiments/transpose/transpose.yaml";
    r.command_line = "bankbench run";
    m_run = m_db->begin_run(gpu, r);

    configuration_record naive;
    naive.seq = 0;
    naive.variant = "transpose/naive";
    naive.family = "transpose";
    naive.params_json = R"({"n":1024})";
    naive.bytes_moved = 8'388'608;
    naive.launches = {launch(0, 1.0, 32, 31), launch(1, 1.5, 32, 31)};
    naive.timing = timing(12340, naive.bytes_moved);
    naive.expectations = {{"store_conflicts_per_request", "store_conflicts_per_request == 0", 31, false},
                          {"load_wavefronts_per_request", "load_wavefronts_per_request <= 1", 1.25, false},
                          {"load_requests", "load_requests > 0", 32768, true}};
    m_db->add_configuration(m_run, naive);

    configuration_record padded;
    padded.seq = 1;
    padded.variant = "transpose/padded";
    padded.family = "transpose";
    padded.params_json = R"({"tile":32,"n":1024})";
    padded.bytes_moved = 8'388'608;
    padded.launches = {launch(0, 1, 1, 0), launch(1, 1, 1, 0)};
    padded.timing = timing(8000, padded.bytes_moved);
    padded.expectations = {{"store_conflicts_per_request", "store_conflicts_per_request == 0", 0, true}};
    m_db->add_configuration(m_run, padded);

    configuration_record big;
    big.seq = 2;
    big.variant = "transpose/padded";
    big.family = "transpose";
    big.params_json = R"({"n":4096,"tile":64})";
    big.status = bb::config_status::unsupported;
    big.reason = "tile 64 needs 33 KiB of shared memory per block";
    m_db->add_configuration(m_run, big);

    m_db->finish_run(m_run, bb::run_status::completed);
    // finish_run stamps the current time; the golden text needs a fixed one.
    EXPECT_EQ(sqlite3_exec(m_db->handle(),
                           "UPDATE runs SET finished_at = '2026-11-21T08:31:02.456Z'; "
                           "UPDATE gpus SET first_seen_at = '2026-11-21T08:30:12.000Z'",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
  }
  void TearDown() override {
    m_db.reset();
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }

  std::string show(output_format format) {
    std::ostringstream out;
    bb::query::show_run(*m_db, m_run, out, format);
    return out.str();
  }

  fs::path m_dir;
  std::optional<database> m_db;
  std::int64_t m_run = 0;
};

TEST_F(query_show, table) {
  EXPECT_EQ(
      show(output_format::table),
      "run 1: transpose (experiments/transpose/transpose.yaml)\n"
      "gpu:      NVIDIA H100 80GB HBM3 (GH100, cc 9.0), driver 580.159.04, CUDA 13.0\n"
      "started:  2026-11-21T08:30:12.123Z\n"
      "finished: 2026-11-21T08:31:02.456Z\n"
      "status:   completed\n"
      "commit:   0123456789abcdef0123456789abcdef01234567-dirty\n"
      "\n"
      "variant  params          status                                                        ld req  ld wf/req  ld conflicts/req  st wf/req  st conflicts/req  median us    GB/s  expectations\n"
      "-------  --------------  ------------------------------------------------------------  ------  ---------  ----------------  ---------  ----------------  ---------  ------  ------------------------------------------------------------------------------------------------------\n"
      "naive    n=1024          ok                                                             32768       1.25              0.25      32.00             31.00      12.34   679.8  FAIL: store_conflicts_per_request == 0 (observed 31); load_wavefronts_per_request <= 1 (observed 1.25)\n"
      "padded   n=1024 tile=32  ok                                                             32768       1.00              0.00       1.00              0.00       8.00  1048.6  pass\n"
      "padded   n=4096 tile=64  unsupported: tile 64 needs 33 KiB of shared memory per block       -          -                 -          -                 -          -       -  -\n"
      "\n"
      "configurations: 2 ok, 1 unsupported; expectations: 2 met, 2 failed\n");
}

TEST_F(query_show, markdown) {
  EXPECT_EQ(
      show(output_format::markdown),
      "## Run 1: transpose\n"
      "\n"
      "- experiment: `experiments/transpose/transpose.yaml`\n"
      "- gpu: NVIDIA H100 80GB HBM3 (GH100, cc 9.0), driver 580.159.04, CUDA 13.0\n"
      "- started: 2026-11-21T08:30:12.123Z\n"
      "- finished: 2026-11-21T08:31:02.456Z\n"
      "- status: completed\n"
      "- commit: 0123456789abcdef0123456789abcdef01234567-dirty\n"
      "\n"
      "| variant | params         | status                                                       | ld req | ld wf/req | ld conflicts/req | st wf/req | st conflicts/req | median us |   GB/s | expectations                                                                                           |\n"
      "| ------- | -------------- | ------------------------------------------------------------ | -----: | --------: | ---------------: | --------: | ---------------: | --------: | -----: | ------------------------------------------------------------------------------------------------------ |\n"
      "| naive   | n=1024         | ok                                                           |  32768 |      1.25 |             0.25 |     32.00 |            31.00 |     12.34 |  679.8 | FAIL: store_conflicts_per_request == 0 (observed 31); load_wavefronts_per_request <= 1 (observed 1.25) |\n"
      "| padded  | n=1024 tile=32 | ok                                                           |  32768 |      1.00 |             0.00 |      1.00 |             0.00 |      8.00 | 1048.6 | pass                                                                                                   |\n"
      "| padded  | n=4096 tile=64 | unsupported: tile 64 needs 33 KiB of shared memory per block |      - |         - |                - |         - |                - |         - |      - | -                                                                                                      |\n"
      "\n"
      "configurations: 2 ok, 1 unsupported; expectations: 2 met, 2 failed\n");
}

TEST_F(query_show, csv_has_the_rows_alone_with_every_digit) {
  EXPECT_EQ(show(output_format::csv),
            "seq,variant,params_json,status,reason,load_requests,load_wavefronts_per_request,"
            "load_conflicts_per_request,store_wavefronts_per_request,store_conflicts_per_request,median_ns,"
            "bandwidth_gbps,expectations\n"
            "0,transpose/naive,\"{\"\"n\"\":1024}\",ok,,32768,1.25,0.25,32,31,12340,679.7899513776337,"
            "FAIL: store_conflicts_per_request == 0 (observed 31); load_wavefronts_per_request <= 1 (observed 1.25)\n"
            "1,transpose/padded,\"{\"\"tile\"\":32,\"\"n\"\":1024}\",ok,,32768,1,0,1,0,8000,1048.576,pass\n"
            "2,transpose/padded,\"{\"\"n\"\":4096,\"\"tile\"\":64}\",unsupported,"
            "tile 64 needs 33 KiB of shared memory per block,,,,,,,,\n");
}

TEST_F(query_show, failed_configuration_shows_its_reason_and_no_numbers) {
  configuration_record broken;
  broken.seq = 3;
  broken.variant = "transpose/swizzled";
  broken.family = "transpose";
  broken.status = bb::config_status::wrong_result;
  broken.reason = "12 of 1048576 elements differ; first out[3,7] = 0, expected 1.5";
  // Counters were read before verification failed; they are kept in the database, not shown.
  broken.launches = {launch(0, 1, 1, 0)};
  m_db->add_configuration(m_run, broken);
  const std::string text = show(output_format::table);
  const auto row = text.find("swizzled");
  ASSERT_NE(row, std::string::npos) << text;
  const std::string line = text.substr(row, text.find('\n', row) - row);
  EXPECT_EQ(line,
            "swizzled  -               wrong_result: 12 of 1048576 elements differ; first out[3,7] = 0, "
            "expected 1.5       -          -                 -          -                 -          -       -  -");
  EXPECT_NE(text.find("configurations: 2 ok, 1 wrong_result, 1 unsupported; expectations: 2 met, 2 failed"),
            std::string::npos)
      << text;
}

TEST_F(query_show, json_holds_the_run_its_gpu_and_configurations_with_numbers) {
  const auto doc = nlohmann::json::parse(show(output_format::json));
  ASSERT_EQ(doc["runs"].size(), 1U);
  const auto& run = doc["runs"][0];
  EXPECT_EQ(run["run_id"], 1);
  EXPECT_EQ(run["experiment"], "transpose");
  EXPECT_EQ(run["git_commit"], "0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(run["git_dirty"], true);
  EXPECT_TRUE(run["session_id"].is_null());
  EXPECT_EQ(run["gpu"]["chip"], "GH100");
  EXPECT_EQ(run["statuses"], (nlohmann::json{{"ok", 2}, {"unsupported", 1}}));
  EXPECT_EQ(run["expectations"], (nlohmann::json{{"met", 2}, {"failed", 2}}));
  const auto& c = run["configurations"];
  ASSERT_EQ(c.size(), 3U);
  EXPECT_EQ(c[0]["variant"], "transpose/naive");
  EXPECT_EQ(c[0]["params"], (nlohmann::json{{"n", 1024}}));
  EXPECT_EQ(c[0]["load_wavefronts_per_request"], 1.25);
  EXPECT_EQ(c[0]["median_ns"], 12340);
  EXPECT_EQ(c[1]["expectations"], "pass");
  EXPECT_EQ(c[2]["status"], "unsupported");
  EXPECT_EQ(c[2]["reason"], "tile 64 needs 33 KiB of shared memory per block");
  EXPECT_TRUE(c[2]["load_requests"].is_null());
  EXPECT_TRUE(c[2]["expectations"].is_null());
}

TEST_F(query_show, csv_of_several_runs_is_one_table_with_their_ids) {
  // The same run again under another id: one header, a run_id column, every row once per run.
  run_record again;
  again.started_at = "2026-11-21T09:00:00.000Z";
  again.bankbench_version = "0.1.0";
  again.experiment_name = "transpose";
  again.experiment_path = "experiments/transpose/transpose.yaml";
  again.command_line = "bankbench run";
  const auto second = m_db->begin_run(1, again);
  configuration_record c;
  c.seq = 0;
  c.variant = "transpose/naive";
  c.family = "transpose";
  c.params_json = R"({"n":1024})";
  c.launches = {launch(0, 1.0, 32, 31)};
  m_db->add_configuration(second, c);
  m_db->finish_run(second, bb::run_status::completed);
  std::ostringstream out;
  bb::query::show_runs(*m_db, {m_run, second}, out, output_format::csv);
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("run_id,seq,variant,params_json,status,", 0), 0U) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 3 + 1) << text;
  EXPECT_EQ(text.find("run_id", 1), std::string::npos) << text; // one header
  EXPECT_NE(text.find("\n2,0,transpose/naive,"), std::string::npos) << text;
}

TEST_F(query_show, unknown_run_is_a_usage_error_that_names_list_runs) {
  std::ostringstream out;
  try {
    bb::query::show_run(*m_db, 42, out, output_format::table);
    FAIL() << "no bb::usage_error";
  } catch (const bb::usage_error& e) {
    EXPECT_EQ(std::string(e.what()), "no run 42 in " + m_db->path() + "; `bankbench list runs` lists the runs there");
    EXPECT_EQ(e.code(), bb::exit_code::usage);
  }
  EXPECT_EQ(out.str(), "");
}

TEST_F(query_show, list_runs_and_gpus) {
  std::ostringstream runs;
  bb::query::list_runs(*m_db, runs, output_format::table);
  EXPECT_EQ(
      runs.str(),
      "id  session  started                   status     experiment  gpu                    commit              fingerprint  configs  failed  expect failed\n"
      "--  -------  ------------------------  ---------  ----------  ---------------------  ------------------  -----------  -------  ------  -------------\n"
      " 1        -  2026-11-21T08:30:12.123Z  completed  transpose   NVIDIA H100 80GB HBM3  0123456789ab-dirty  -                  3       1              2\n");
  std::ostringstream gpus;
  bb::query::list_gpus(*m_db, gpus, output_format::table);
  EXPECT_EQ(
      gpus.str(),
      "id  name                   chip   cc   SMs  memory GiB  L2 MiB  driver      backend  uuid      first seen                runs\n"
      "--  ---------------------  -----  ---  ---  ----------  ------  ----------  -------  --------  ------------------------  ----\n"
      " 1  NVIDIA H100 80GB HBM3  GH100  9.0  132        80.0    50.0  580.159.04  cupti    GPU-0001  2026-11-21T08:30:12.000Z     1\n");
  // Programs get whole commits and byte counts.
  std::ostringstream csv;
  bb::query::list_runs(*m_db, csv, output_format::csv);
  EXPECT_NE(csv.str().find(",0123456789abcdef0123456789abcdef01234567-dirty,"), std::string::npos) << csv.str();
  std::ostringstream json;
  bb::query::list_gpus(*m_db, json, output_format::json);
  EXPECT_EQ(nlohmann::json::parse(json.str())[0]["memory_bytes"], 85'899'345'920LL);
}

TEST_F(query_show, an_attach_run_says_where_its_program_ran_and_how_it_ended) {
  run_record r;
  r.started_at = "2026-11-21T09:00:00.000Z";
  r.bankbench_version = "0.1.0";
  r.experiment_name = "train";
  r.experiment_path = "/opt/app/bin/train";
  r.command_line = "bankbench attach -- train";
  r.kind = "attach";
  r.working_directory = "/home/lab/app";
  const auto id = m_db->begin_run(m_db->runs().front().gpu_id, r);
  m_db->finish_attach(id, bb::run_status::failed, 3, "program exited with code 3");
  ASSERT_EQ(sqlite3_exec(m_db->handle(), "UPDATE runs SET finished_at = '2026-11-21T09:00:05.000Z' WHERE id = 2",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  std::ostringstream text;
  bb::query::show_run(*m_db, id, text, output_format::table);
  // The header; the (empty) table and summary follow as for any run.
  const std::string header = text.str().substr(0, text.str().find("\n\n") + 1);
  EXPECT_EQ(header, "run 2: train (attach)\n"
                    "attached to:       /opt/app/bin/train\n"
                    "gpu:               NVIDIA H100 80GB HBM3 (GH100, cc 9.0), driver 580.159.04, CUDA 13.0\n"
                    "started:           2026-11-21T09:00:00.000Z\n"
                    "finished:          2026-11-21T09:00:05.000Z\n"
                    "status:            failed\n"
                    "commit:            unknown\n"
                    "kind:              attach\n"
                    "working directory: /home/lab/app\n"
                    "program exit:      3\n"
                    "note:              program exited with code 3\n");
  std::ostringstream markdown;
  bb::query::show_run(*m_db, id, markdown, output_format::markdown);
  EXPECT_EQ(markdown.str().rfind("## Run 2: train\n\n- attached to: `/opt/app/bin/train`\n", 0), 0U) << markdown.str();
  EXPECT_NE(markdown.str().find("- program exit: 3\n- note: program exited with code 3\n"), std::string::npos);
  std::ostringstream json;
  bb::query::show_run(*m_db, id, json, output_format::json);
  const auto run = nlohmann::json::parse(json.str())["runs"][0];
  EXPECT_EQ(run["kind"], "attach");
  EXPECT_EQ(run["working_directory"], "/home/lab/app");
  EXPECT_EQ(run["program_exit"], 3);
  EXPECT_EQ(run["note"], "program exited with code 3");
  // A run of `bankbench run` reads kind "run" and nothing for the rest.
  const auto plain = nlohmann::json::parse(show(output_format::json))["runs"][0];
  EXPECT_EQ(plain["kind"], "run");
  EXPECT_TRUE(plain["program_exit"].is_null());
  EXPECT_TRUE(plain["note"].is_null());

  std::ostringstream runs;
  bb::query::list_runs(*m_db, runs, output_format::table);
  EXPECT_NE(runs.str().find("  failed     train (attach)  NVIDIA H100"), std::string::npos) << runs.str();
  EXPECT_NE(runs.str().find("  completed  transpose       NVIDIA H100"), std::string::npos) << runs.str();
  std::ostringstream csv;
  bb::query::list_runs(*m_db, csv, output_format::csv);
  EXPECT_NE(csv.str().find(",failed_expectations,kind\n"), std::string::npos) << csv.str();
  EXPECT_NE(csv.str().find(",failed,train,NVIDIA H100 80GB HBM3,"), std::string::npos) << csv.str();
  EXPECT_NE(csv.str().find(",0,0,0,attach\n"), std::string::npos) << csv.str();
}

TEST(query_list, empty_database_says_so) {
  const fs::path dir = fs::temp_directory_path() / ("bb_test_query_list_" + std::to_string(::getpid()));
  {
    const auto db = database::open((dir / "empty.sqlite").string());
    std::ostringstream text, csv;
    bb::query::list_runs(db, text, output_format::table);
    bb::query::list_gpus(db, text, output_format::table);
    bb::query::list_runs(db, csv, output_format::csv);
    EXPECT_EQ(text.str(), "no runs in " + db.path() + " yet\nno GPUs in " + db.path() + " yet\n");
    EXPECT_EQ(csv.str(), "id,session_id,started_at,status,experiment,gpu,git_commit,fingerprint,configurations,"
                         "failed_configurations,failed_expectations,kind\n");
    std::ostringstream json;
    bb::query::list_gpus(db, json, output_format::json);
    EXPECT_EQ(json.str(), "[]\n");
  }
  fs::remove_all(dir);
}

} // namespace

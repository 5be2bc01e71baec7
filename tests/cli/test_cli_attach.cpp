// `bankbench attach` without a GPU: options and programs refused in words, the program's exit code
// and time limit, and a program that never uses CUDA.
#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "cli_db.hpp"
#include "cli_runner.hpp"

namespace {

using bb::test::run_cli;
using bb::test::temp_dir;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(cli_attach, options_are_refused_in_words_before_the_program_starts) {
  temp_dir tmp;
  const std::string db = "--db '" + (tmp.path / "a.sqlite").string() + "' ";
  const std::string marker = (tmp.path / "started").string();
  const std::string program = " -- sh -c 'touch " + marker + "'";
  struct refusal {
    std::string options, words;
  };
  for (const refusal& r :
       {refusal{"--kernel-name 'tile['", "--kernel-name 'tile[' is not a regular expression"},
        refusal{"--nvtx-include '@x'", "names no domain before '@'"},
        refusal{"--nvtx-include 'dom@'", "names no range"},
        refusal{"--metrics bank_conflict", "did you mean 'bank_conflicts'?"},
        refusal{"--target-processes some", "--target-processes"}, refusal{"--launch-count -1", "--launch-count"},
        refusal{"--time-limit nan", "--time-limit must be a number of seconds"},
        refusal{"--cache-control once", "--cache-control must be one of all, none, got 'once'"}}) {
    const auto out = run_cli(db + "attach " + r.options + program);
    EXPECT_EQ(out.exit_code, 2) << r.options << "\n" << out.err;
    EXPECT_TRUE(has(out.err, r.words)) << r.options << "\n" << out.err;
    EXPECT_FALSE(std::filesystem::exists(marker)) << r.options;
  }
  const auto none = run_cli(db + "attach");
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_TRUE(has(none.err, "program")) << none.err;
  const auto missing = run_cli(db + "attach -- no_such_program_bankbench");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_TRUE(has(missing.err, "cannot start \"no_such_program_bankbench\": no such program on PATH") ||
              has(missing.err, "cannot start no_such_program_bankbench: no such program on PATH"))
      << missing.err;
  const auto folder = run_cli(db + "attach -- " + tmp.path.string());
  EXPECT_EQ(folder.exit_code, 2) << folder.err;
  EXPECT_TRUE(has(folder.err, "Is a directory")) << folder.err;
}

// The program's output and exit code are its own; a program that never initialises CUDA stores
// nothing and is said.
TEST(cli_attach, the_programs_output_and_exit_code_pass_through) {
  temp_dir tmp;
  const std::string db = (tmp.path / "a.sqlite").string();
  const auto fails = run_cli("--db '" + db + "' attach -- sh -c 'echo from the program; exit 5'");
  EXPECT_EQ(fails.exit_code, 5) << fails.err;
  EXPECT_EQ(fails.out, "from the program\n");
  // The settings reach the program in its environment: the L2 flush is on unless asked off.
  const auto told = [&](const std::string& options) {
    return run_cli("--db '" + db + "' attach " + options + " -- sh -c 'printf %s \"$BANKBENCH_ATTACH_SETTINGS\"'").out;
  };
  EXPECT_TRUE(has(told(""), "\"flush_l2\":true")) << told("");
  EXPECT_TRUE(has(told("--cache-control none"), "\"flush_l2\":false")) << told("--cache-control none");
  const auto plain = run_cli("--db '" + db + "' attach -- true");
  EXPECT_EQ(plain.exit_code, 1) << plain.err;
  EXPECT_TRUE(has(plain.err, "no kernel launch was profiled: the program never initialised CUDA")) << plain.err;
  EXPECT_EQ(bb::test::query_text(db, "SELECT count(*) FROM runs"), "0");
}

TEST(cli_attach, the_time_limit_stops_the_program_and_its_children) {
  temp_dir tmp;
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_cli("--db '" + (tmp.path / "a.sqlite").string() +
                         "' attach --time-limit 1 -- sh -c 'sleep 60 & sleep 60; wait'");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 128 + 15) << r.err;
  EXPECT_TRUE(has(r.err, "ran past --time-limit 1 s")) << r.err;
  EXPECT_LT(s, 20.0);
}

} // namespace

namespace {

const std::string k_replay = "python3 '" BB_TEST_DATA "/attach/replay_client.py' '" BB_TEST_DATA
                             "/attach/program-quick.jsonl'";

// The protocol without a GPU: a client speaking for the library replays what it sent in a real
// attach of tests/programs/attach_program on an H100; bankbench stores it as it would the library's.
TEST(cli_attach, a_replayed_attach_is_stored_as_measured) {
  temp_dir tmp;
  const std::string db = (tmp.path / "a.sqlite").string();
  const auto r = run_cli("--db '" + db + "' attach --name program -- " + k_replay);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("replay_client: profiled _Z9transposeI5naiveLi32ELi8EEvPKfPfi#0"), std::string::npos) << r.out;
  EXPECT_EQ(bb::test::query_text(db, "SELECT experiment_name || ' ' || kind || ' ' || status || ' ' || program_exit "
                                     "FROM runs"),
            "program attach completed 0");
  EXPECT_EQ(bb::test::query_text(db, "SELECT group_concat(variant, ', ') FROM (SELECT variant FROM configurations "
                                     "ORDER BY seq)"),
            "transpose<naive, 32, 8>, transpose<padded, 32, 8>, (anonymous namespace)::bump, (anonymous "
            "namespace)::bump, (anonymous namespace)::bump, transpose<naive, 32, 8>");
  EXPECT_EQ(bb::test::query_text(db, "SELECT params_json FROM configurations WHERE seq = 5"),
            R"({"block":"32x8x1","grid":"32x32x1","launch":1,"smem":0})");
  // The measured values, and the metrics `run` derives from them (requests from the quick set's
  // hardware counters); no excess without the access width.
  EXPECT_EQ(bb::test::query_text(db, "SELECT CAST(value AS INTEGER) FROM metrics m JOIN configurations c ON c.id = "
                                     "m.configuration_id WHERE c.seq = 1 AND m.name = "
                                     "'smsp__inst_executed_op_shared_ld.sum'"),
            "32768");
  EXPECT_EQ(bb::test::query_text(db, "SELECT CAST(round(value) AS INTEGER) FROM metrics m JOIN configurations c ON "
                                     "c.id = m.configuration_id WHERE c.seq = 0 AND m.name = "
                                     "'load_wavefronts_per_request'"),
            "32");
  EXPECT_EQ(bb::test::query_text(db, "SELECT count(*) FROM metrics WHERE name LIKE '%excess%'"), "0");
  EXPECT_EQ(bb::test::query_text(db, "SELECT name FROM gpus"), "NVIDIA H100 80GB HBM3");

  // Show and the gate read attach runs like any other.
  const auto show = run_cli("--db '" + db + "' show 1");
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("transpose<naive, 32, 8>"), std::string::npos) << show.out;
  const auto again = run_cli("--db '" + db + "' attach --name program -- " + k_replay);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto gate = run_cli("--db '" + db + "' regress -b 1 -c 2");
  EXPECT_EQ(gate.exit_code, 0) << gate.out << gate.err;
}

// Skip and count are bankbench's answers: the library profiles only what it is granted.
TEST(cli_attach, skip_and_count_are_answered_over_the_socket) {
  temp_dir tmp;
  const std::string db = (tmp.path / "a.sqlite").string();
  const auto r = run_cli("--db '" + db + "' attach --launch-skip 2 --launch-count 2 -- " + k_replay + " 3");
  EXPECT_EQ(r.exit_code, 3) << r.err; // the program's own exit code
  EXPECT_NE(r.out.find("profiled _ZN12_GLOBAL__N_14bumpEPii#0 _ZN12_GLOBAL__N_14bumpEPii#1\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(bb::test::query_text(db, "SELECT count(*) || ' ' || group_concat(json_extract(params_json, '$.launch')) "
                                     "FROM configurations"),
            "2 0,1");
  EXPECT_EQ(bb::test::query_text(db, "SELECT status || ' ' || program_exit || ' ' || note FROM runs"),
            "failed 3 the program exited with code 3");
}

} // namespace

namespace {

// Every process of the program that uses CUDA is followed, named by its rank; application-only
// follows the program's own process alone.
TEST(cli_attach, processes_of_a_program_tree_are_told_apart_by_rank) {
  temp_dir tmp;
  const std::string db = (tmp.path / "a.sqlite").string();
  const std::string tree = " -- sh -c \"RANK=0 " + k_replay + " & RANK=1 " + k_replay + "; wait\"";
  const auto all = run_cli("--db '" + db + "' attach" + tree);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(bb::test::query_text(db, "SELECT count(*) || ' ' || count(DISTINCT json_extract(params_json, '$.process')) "
                                     "FROM configurations"),
            "12 2");
  EXPECT_EQ(bb::test::query_text(db, "SELECT count(*) FROM configurations WHERE json_extract(params_json, "
                                     "'$.process') = 'rank 1'"),
            "6");
  EXPECT_NE(all.err.find("2 process(es) of the program started CUDA, 2 followed"), std::string::npos) << all.err;
  const std::string only = (tmp.path / "b.sqlite").string();
  const auto one = run_cli("--db '" + only + "' attach --target-processes application-only" + tree);
  EXPECT_EQ(one.exit_code, 1) << one.err;
  EXPECT_NE(one.out.find("replay_client: not followed"), std::string::npos) << one.out;
  EXPECT_NE(one.err.find("2 process(es) of the program started CUDA, 0 followed"), std::string::npos) << one.err;
}

// The library's own failure (another profiler holding the counters) is bankbench's exit 3, said.
TEST(cli_attach, a_profiler_already_attached_is_exit_3) {
  temp_dir tmp;
  const auto r = run_cli("--db '" + (tmp.path / "a.sqlite").string() + "' attach -- " + k_replay,
                         "REPLAY_ERROR='environment:another profiler already holds CUPTI in the program'");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("another profiler already holds CUPTI in the program"), std::string::npos) << r.err;
}

// Attach runs downstream: compare kernel by kernel, export, the report, merge.
TEST(cli_attach, attach_runs_compare_export_report_and_merge) {
  temp_dir tmp;
  const std::string db = (tmp.path / "a.sqlite").string();
  for (int i = 0; i < 2; ++i) ASSERT_EQ(run_cli("--db '" + db + "' attach --name p -- " + k_replay).exit_code, 0);
  const auto cmp = run_cli("--db '" + db + "' compare runs 1 2 -f csv");
  EXPECT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_NE(cmp.out.find("transpose<naive, 32, 8>"), std::string::npos) << cmp.out;
  const auto csv = run_cli("--db '" + db + "' export -f csv");
  EXPECT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("(anonymous namespace)::bump"), std::string::npos);
  const std::string html = (tmp.path / "r.html").string();
  const auto report = run_cli("--db '" + db + "' report -o '" + html + "'");
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(bb::test::slurp(html).find("transpose&lt;naive, 32, 8&gt;"), std::string::npos);
  const std::string into = (tmp.path / "m.sqlite").string();
  const auto merged = run_cli("merge '" + db + "' --into '" + into + "'");
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(bb::test::query_text(into, "SELECT group_concat(kind || ' ' || program_exit) FROM runs"),
            "attach 0,attach 0");
}

// SIGTERM to bankbench reaches the program; the run is kept, interrupted.
TEST(cli_attach, sigterm_is_passed_to_the_program) {
  temp_dir tmp;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string err = (tmp.path / "err").string();
  const auto r = run_cli("--db '" + (tmp.path / "a.sqlite").string() + "' attach -- sleep 30 2>'" + err +
                         "' & pid=$!; sleep 1; kill -TERM $pid; wait $pid");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 128 + 15) << r.err;
  EXPECT_NE(bb::test::slurp(err).find("SIGTERM: waiting for the program to stop"), std::string::npos)
      << bb::test::slurp(err);
  EXPECT_LT(s, 15.0);
}

} // namespace

namespace {

// The database replaced under a running attach: nothing more is stored, the program is not
// disturbed (no launch granted from then on), and attach exits 4 once it ends.
TEST(cli_attach, a_database_lost_mid_attach_stops_the_storing_not_the_program) {
  temp_dir tmp;
  const std::string db = (tmp.path / "a.sqlite").string();
  const std::string err = (tmp.path / "err").string(), out = (tmp.path / "out").string();
  const auto r = run_cli("--db '" + db + "' attach -- " + k_replay + " >'" + out + "' 2>'" + err +
                             "' & pid=$!; sleep 0.5; rm -f '" + db + "'; wait $pid",
                         "REPLAY_PAUSE=1.5");
  EXPECT_EQ(r.exit_code, 4) << bb::test::slurp(err);
  // The first launch was granted before the run was written; none after the failure.
  EXPECT_EQ(bb::test::slurp(out), "replay_client: profiled _Z9transposeI5naiveLi32ELi8EEvPKfPfi#0\n");
  EXPECT_NE(bb::test::slurp(err).find("nothing more is stored"), std::string::npos) << bb::test::slurp(err);
}

} // namespace

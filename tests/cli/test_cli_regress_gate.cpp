// The regression gate through the real binary: sessions, "latest", a gate that cannot pass on
// nothing, and runs that know what built them. Model-backend runs need no GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

using bb::test::run_cli;
namespace fs = std::filesystem;

class cli_gate : public ::testing::Test {
protected:
  std::string db() const { return (m_tmp.path / "r.sqlite").string(); }
  bb::test::cli_result cli(const std::string& args, const std::string& env = "") {
    return run_cli("--db '" + db() + "' " + args, env);
  }
  bb::test::temp_dir m_tmp;
};

TEST_F(cli_gate, a_run_of_the_suite_is_one_session_and_latest_means_all_of_it) {
  const auto run = cli("-q run --backend model experiments");
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.err;
  // One closing line, also under -q, naming the session and the exit code's reason.
  EXPECT_NE(run.err.find("bankbench: session 1: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(" -> exit " + std::to_string(run.exit_code) + ": "), std::string::npos) << run.err;
  const auto list = cli("list runs");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  int runs = 0;
  for (std::size_t at = 0; (at = list.out.find("\n", at)) != std::string::npos; ++at) ++runs;
  ASSERT_GT(runs - 2, 10); // a header, a rule, then one run per experiment file, all of session 1

  const auto show = cli("show");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  for (const char* experiment : {"run 1: ", "transpose", "reduction", "stride"})
    EXPECT_NE(show.out.find(experiment), std::string::npos) << experiment;
  EXPECT_NE(show.out.find(", session 1"), std::string::npos);
  EXPECT_EQ(cli("show session:1").out, show.out);
  EXPECT_EQ(cli("show session:7").exit_code, 2);
  // The grammar of regress and compare: an experiment's newest run, a baseline's runs, JSON.
  const auto one = nlohmann::json::parse(cli("show experiment:transpose -f json").out);
  ASSERT_EQ(one["runs"].size(), 1U);
  EXPECT_EQ(one["runs"][0]["experiment"], "transpose");
  EXPECT_GT(one["runs"][0]["configurations"].size(), 5U);
  ASSERT_EQ(cli("baseline save first experiment:transpose").exit_code, 0);
  EXPECT_EQ(cli("show first -f json").out, cli("show experiment:transpose -f json").out);

  // A second session of the same code: latest against the one before, nothing regressed.
  ASSERT_TRUE(cli("-q run --backend model experiments").exit_code <= 1);
  const auto gate = cli("regress --baseline session:1 --candidate latest --format json");
  ASSERT_EQ(gate.exit_code, 0) << gate.out << gate.err;
  const auto doc = nlohmann::json::parse(gate.out);
  EXPECT_GT(doc["compared"].get<int>(), 500);
  EXPECT_GT(doc["judged"].get<int>(), 1000);
  EXPECT_EQ(doc["regressions"], 0);
  EXPECT_EQ(doc["candidate"]["label"], "session 2");
}

TEST_F(cli_gate, a_gate_on_nothing_fails_loudly) {
  ASSERT_TRUE(cli("-q run --backend model experiments/transpose/transpose.yaml").exit_code <= 1);
  ASSERT_TRUE(cli("-q run --backend model experiments/transpose/transpose.yaml").exit_code <= 1);
  // A misspelt metric: exit 2 with a suggestion, never "no regression".
  const auto typo = cli("regress -b 1 -c 2 -m load_wavefronts_per_requets");
  EXPECT_EQ(typo.exit_code, 2) << typo.out;
  EXPECT_NE(typo.err.find("did you mean 'load_wavefronts_per_request'"), std::string::npos) << typo.err;
  EXPECT_EQ(typo.out.find("no regression"), std::string::npos);
  // A metric the runs did not collect.
  const auto absent = cli("regress -b 1 -c 2 -m l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum");
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.err.find("holds no values of this metric"), std::string::npos) << absent.err;
  // Nothing in common.
  ASSERT_TRUE(cli("-q run --backend model experiments/reduction").exit_code <= 1);
  const auto disjoint = cli("regress -b 1 -c 3");
  EXPECT_EQ(disjoint.exit_code, 2);
  EXPECT_NE(disjoint.err.find("no configuration in common"), std::string::npos) << disjoint.err;
}

TEST_F(cli_gate, untracked_files_make_a_run_dirty_and_change_nothing_else) {
  // A checkout of its own holding one experiment file.
  const fs::path repo = m_tmp.path / "repo";
  fs::create_directories(repo);
  fs::copy_file(fs::path(BB_SOURCE_DIR) / "experiments/transpose/transpose.yaml", repo / "t.yaml");
  const std::string git = "git -C '" + repo.string() + "' -c user.email=t@example.com -c user.name=t ";
  ASSERT_EQ(std::system((git + "init -q && " + git + "add t.yaml && " + git + "commit -qm t").c_str()), 0);
  const std::string file = "'" + (repo / "t.yaml").string() + "'";
  ASSERT_TRUE(cli("-q run --backend model " + file).exit_code <= 1);
  std::ofstream(repo / "new_kernel.cu") << "// not committed yet\n";
  ASSERT_TRUE(cli("-q run --backend model " + file).exit_code <= 1);
  const auto list = cli("list runs");
  ASSERT_EQ(list.exit_code, 0);
  EXPECT_EQ(list.out.find("-dirty"), list.out.rfind("-dirty")) << list.out; // exactly one run is dirty
  EXPECT_NE(list.out.find("-dirty"), std::string::npos) << list.out;
  // Both runs record one fingerprint: the same sources, experiment text and backend.
  const auto show1 = cli("show 1"), show2 = cli("show 2");
  const auto fp = [](const std::string& text) {
    const auto at = text.find("fingerprint ");
    return at == std::string::npos ? std::string() : text.substr(at + 12, 12);
  };
  EXPECT_EQ(fp(show1.out).size(), 12U) << show1.out;
  EXPECT_EQ(fp(show1.out), fp(show2.out));
}

} // namespace

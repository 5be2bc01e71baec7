// README's exit-code table is the one the binary uses: each documented code is produced by a
// situation run here, and no situation gives a code the table does not have.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "cli_db.hpp"

namespace {

/// The codes in README's "### Exit codes" table.
std::set<int> documented_codes() {
  std::ifstream in(BB_SOURCE_DIR "/README.md");
  std::set<int> codes;
  bool in_table = false;
  const std::regex row(R"(^\| (\d+) \|)");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("### Exit codes", 0) == 0)
      in_table = true;
    else if (in_table && line.rfind("#", 0) == 0)
      break;
    std::smatch m;
    if (in_table && std::regex_search(line, m, row)) codes.insert(std::stoi(m[1]));
  }
  return codes;
}

} // namespace

TEST(cli_exit_codes, every_documented_code_comes_from_its_situation) {
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "e.sqlite").string();
  const std::string model = "CUDA_VISIBLE_DEVICES=";
  std::map<int, std::vector<std::string>> got; // code -> situations that gave it
  const auto expect_code = [&](int code, const std::string& what, const std::string& args,
                               const std::string& env = "") {
    const auto r = bb::test::run_cli(args, env);
    EXPECT_EQ(r.exit_code, code) << what << ": " << args << "\n" << r.err;
    got[r.exit_code].push_back(what);
  };
  {
    std::ofstream f(tmp.path / "fails.yaml");
    f << "name: fails\ndescription: naive columns are 32-way conflicted\nfamily: transpose\nvariants: [naive]\n"
         "expect:\n  - metric: load_wavefronts_per_request\n    below: 2\n";
  }
  {
    std::ofstream f(tmp.path / "notes.sqlite");
    f << "not a database\n";
  }
  expect_code(0, "a good model run", "-q --db '" + db + "' run --backend model experiments/transpose/transpose.yaml",
              model);
  expect_code(1, "an expectation not met",
              "-q --db '" + db + "' run --backend model '" + (tmp.path / "fails.yaml").string() + "'", model);
  expect_code(2, "a bad experiment file", "validate tests/data/bad/duplicate_key.yaml");
  expect_code(2, "an unknown option", "run --no-such-option");
  expect_code(2, "bankmap --params n=abc", "bankmap --variant transpose/padded --params n=abc");
  expect_code(2, "a FIFO-like device as experiment", "validate /dev/zero");
  expect_code(3, "a GPU run without a GPU", "--db '" + db + "' run experiments/transpose/transpose.yaml", model);
  expect_code(4, "a foreign database", "--db '" + (tmp.path / "notes.sqlite").string() + "' list runs");
  expect_code(4, "an in-memory database", "--db :memory: run --backend model experiments/transpose/transpose.yaml",
              model);
  expect_code(6, "a full disk under -o", "--db '" + db + "' export -o '" + (tmp.path / "x.csv").string() + "'",
              "BB_TEST_WRITE_LIMIT=10");
  for (const int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTERM}) {
    bb::test::temp_dir run_dir;
    const auto sdb = (run_dir.path / "s.sqlite").string();
    const bb::test::background_run run(run_dir.path, "-q --db '" + sdb + "' run --backend model '" +
                                                         bb::test::sweep_experiment(run_dir.path, "sweep", 1500) + "'");
    ASSERT_GE(run.wait_for_rows(sdb, 50), 50);
    kill(run.pid, sig);
    const int code = run.exit_code();
    EXPECT_EQ(code, 128 + sig) << strsignal(sig) << "\n" << run.err();
    got[code].push_back(strsignal(sig));
  }

  auto documented = documented_codes();
  ASSERT_FALSE(documented.empty()) << "README.md has no exit-code table";
  // 5 is reserved for bugs and unexpected CUDA/CUPTI failures: there is no situation to run.
  EXPECT_EQ(documented.erase(5), 1u) << "README must document 5";
  std::set<int> produced;
  for (const auto& [code, what] : got) produced.insert(code);
  EXPECT_EQ(produced, documented);
}

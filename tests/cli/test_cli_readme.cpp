// The README's examples, run as written: every `bankbench ...` line of its ```sh blocks, in order,
// in a fresh folder (experiments/ linked in) without a GPU. Each must exit 0, or the code its
// comment states ("# ... exit 3 ..."). Lines that need a GPU say "exit 3", the no-GPU exit.
#include <sys/wait.h>

#include <fstream>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace {

struct example {
  int line = 0;
  std::string command; ///< without its comment
  int expected_exit = 0;
};

std::vector<example> readme_examples(const std::string& path) {
  std::ifstream in(path);
  std::vector<example> out;
  std::string text;
  bool in_sh = false;
  const std::regex exit_note(R"(\bexit (\d+)\b)");
  for (int n = 1; std::getline(in, text); ++n) {
    if (text.rfind("```", 0) == 0) {
      in_sh = !in_sh && text.substr(3) == "sh";
      continue;
    }
    if (!in_sh || text.rfind("bankbench ", 0) != 0) continue;
    example e{n, text, 0};
    if (const auto hash = text.find(" #"); hash != std::string::npos) {
      const std::string comment = text.substr(hash);
      e.command = text.substr(0, hash);
      std::smatch m;
      if (std::regex_search(comment, m, exit_note)) e.expected_exit = std::stoi(m[1]);
    }
    while (!e.command.empty() && e.command.back() == ' ') e.command.pop_back();
    out.push_back(e);
  }
  return out;
}

bb::test::cli_result run_in(const std::filesystem::path& dir, const std::string& command) {
  const auto out = dir / ".out", err = dir / ".err";
  const std::string cmd = "cd '" + dir.string() + "' && env -u BANKBENCH_DB CUDA_VISIBLE_DEVICES= '" BB_BINARY "' " +
                          command.substr(std::string("bankbench ").size()) + " >'" + out.string() + "' 2>'" +
                          err.string() + "'";
  const int status = std::system(cmd.c_str());
  bb::test::cli_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = bb::test::slurp(out);
  r.err = bb::test::slurp(err);
  return r;
}

} // namespace

TEST(cli_readme, every_example_runs_without_a_gpu_and_exits_as_stated) {
  const auto examples = readme_examples(BB_SOURCE_DIR "/README.md");
  ASSERT_GE(examples.size(), 13u) << "the README lost its examples";
  bb::test::temp_dir tmp;
  std::filesystem::create_directory_symlink(BB_SOURCE_DIR "/experiments", tmp.path / "experiments");
  for (const auto& e : examples) {
    const auto r = run_in(tmp.path, e.command);
    EXPECT_EQ(r.exit_code, e.expected_exit) << "README.md:" << e.line << ": " << e.command << "\n" << r.err << r.out;
  }
}

TEST(cli_readme, every_command_has_an_example) {
  std::set<std::string> shown;
  for (const auto& e : readme_examples(BB_SOURCE_DIR "/README.md")) {
    std::istringstream words(e.command);
    std::string word;
    words >> word; // bankbench
    while (words >> word && word[0] == '-') {
      if (word == "--db") words >> word; // its value
    }
    shown.insert(word);
  }
  for (const char* c : {"run", "validate", "compile", "list", "show", "lines", "bankmap", "compare", "regress",
                        "baseline", "history", "export", "merge", "report", "techniques"})
    EXPECT_EQ(shown.count(c), 1u) << "README.md has no ```sh example of `bankbench " << c << "`";
}

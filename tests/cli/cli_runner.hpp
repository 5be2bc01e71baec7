#pragma once
// Runs the real bankbench binary and captures its exit code, stdout and stderr.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace bb::test {

struct cli_result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A fresh folder under the system temp dir, removed with the object.
struct temp_dir {
  std::filesystem::path path;
  temp_dir() {
    path = std::filesystem::temp_directory_path() /
           ("bankbench-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

/// Runs `binary` with `args` (shell text) from the source folder; `env` is prefixed (e.g. "VAR=x").
inline cli_result run_cli_binary(const std::string& binary, const std::string& args, const std::string& env = "") {
  temp_dir tmp;
  const auto out = tmp.path / "out", err = tmp.path / "err";
  const std::string cmd = "cd '" BB_SOURCE_DIR "' && " + env + " '" + binary + "' " + args + " >'" + out.string() +
                          "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  cli_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

/// Runs the bankbench binary under test.
inline cli_result run_cli(const std::string& args, const std::string& env = "") {
  return run_cli_binary(BB_BINARY, args, env);
}

} // namespace bb::test

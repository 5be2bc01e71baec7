#pragma once
// Helpers for CLI tests that run the model backend in the background and read its database.
#include <sqlite3.h>
#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace bb::test {

/// The first column of the first row of `sql` on a read-only connection; "" when none.
inline std::string query_text(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_text(st, 0) != nullptr)
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

/// Runs `sql` (a change made by hand, as a user might) on a read-write connection.
inline void exec_sql(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

/// Every row of `sql`'s first column on a read-only connection, as text ("NULL" for NULL).
inline std::vector<std::string> query_column(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::string> out;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return out;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW) {
      const auto* text = sqlite3_column_text(st, 0);
      out.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "NULL");
    }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

/// One transpose experiment with 3 * sizes configurations.
inline std::string sweep_experiment(const std::filesystem::path& dir, const std::string& name, int sizes) {
  const auto path = dir / (name + ".yaml");
  std::ofstream f(path);
  f << "name: " << name << "\ndescription: many configurations\nfamily: transpose\n"
    << "variants: [naive, padded, swizzled]\naxes:\n  n: [";
  for (int i = 1; i <= sizes; ++i) f << (i > 1 ? ", " : "") << i;
  f << "]\n";
  return path.string();
}

/// `bankbench ARGS` started in the background from the source folder, with `env` (no GPU by
/// default); its pid, exit code (once it ends) and stderr land in `dir`.
struct background_run {
  std::filesystem::path dir;
  pid_t pid = 0;
  background_run(const std::filesystem::path& folder, const std::string& args,
                 const std::string& env = "CUDA_VISIBLE_DEVICES=")
      : dir(folder) {
    const std::string cmd = "cd '" BB_SOURCE_DIR "' && (" + env + " '" BB_BINARY "' " + args + " >/dev/null 2>'" +
                            (dir / "err").string() + "' & pid=$!; echo $pid > '" + (dir / "pid").string() +
                            "'; wait $pid; echo $? > '" + (dir / "rc").string() + "') &";
    if (std::system(cmd.c_str()) == 0)
      for (int i = 0; i < 500 && pid == 0; ++i) {
        const auto text = slurp(dir / "pid");
        if (!text.empty() && text.back() == '\n')
          pid = std::stoi(text);
        else
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
  }
  /// Waits until `db` holds `rows` configurations (or 10 s pass); returns how many it holds.
  [[nodiscard]] int wait_for_rows(const std::string& db, int rows) const {
    int stored = 0;
    for (int i = 0; i < 1000 && stored < rows; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      const auto n = query_text(db, "select count(*) from configurations");
      stored = n.empty() ? 0 : std::stoi(n);
    }
    return stored;
  }
  /// The exit code, waiting up to `seconds`; -1 if it has not ended.
  [[nodiscard]] int exit_code(int seconds = 20) const {
    for (int i = 0; i < seconds * 100; ++i) {
      const auto text = slurp(dir / "rc");
      if (!text.empty() && text.back() == '\n') return std::stoi(text);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }
  [[nodiscard]] std::string err() const { return slurp(dir / "err"); }
};

} // namespace bb::test

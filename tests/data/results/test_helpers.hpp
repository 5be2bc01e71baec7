#pragma once
// Helpers shared by the results tests: a temporary folder per test, raw SQL, whole-file reads and
// golden files (tests/data/results/golden/<name>; BB_UPDATE_GOLDEN=1 rewrites them).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

namespace bb::test::results {

namespace fs = std::filesystem;

/// A folder of its own for each test, removed after it.
class temp_folder {
public:
  temp_folder() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_path = fs::temp_directory_path() / (std::string("bb_results_") + std::to_string(::getpid()) + "_" +
                                          info->test_suite_name() + "_" + info->name());
    fs::remove_all(m_path);
    fs::create_directories(m_path);
  }
  ~temp_folder() {
    std::error_code ec;
    fs::remove_all(m_path, ec);
  }
  temp_folder(const temp_folder&) = delete;
  temp_folder& operator=(const temp_folder&) = delete;
  [[nodiscard]] std::string file(const std::string& name) const { return (m_path / name).string(); }
  [[nodiscard]] const fs::path& path() const { return m_path; }

private:
  fs::path m_path;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The first column of the first row of `sql` as text ("" for NULL or no row).
inline std::string scalar(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db);
  } else if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != nullptr) {
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

/// Runs `sql` on a read-write connection.
inline void exec(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(db_path.c_str(), &db);
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    ADD_FAILURE() << sql << ": " << (error ? error : "?");
    sqlite3_free(error);
  }
  sqlite3_close(db);
}

/// Timestamps that differ from one test run to the next ("created" of a baseline) become
/// "YYYY-MM-DDTHH:MM:SS.mmmZ", as wide as they were so that tables stay aligned.
inline std::string without_clock(const std::string& text) {
  static const std::regex now(R"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\d\dZ)");
  std::string out;
  // The fixture's own times are all in November 2026 at whole hours; only others are replaced.
  std::sregex_iterator it(text.begin(), text.end(), now), end;
  std::size_t last = 0;
  for (; it != end; ++it) {
    const std::string m = it->str();
    out += text.substr(last, static_cast<std::size_t>(it->position()) - last);
    out += m.substr(13) == ":00:00.000Z" && m.rfind("2026-11-0", 0) == 0 ? m : "YYYY-MM-DDTHH:MM:SS.mmmZ";
    last = static_cast<std::size_t>(it->position()) + m.size();
  }
  return out + text.substr(last);
}

/// Compares `actual` with tests/data/results/golden/<name>, or writes it there when the
/// environment has BB_UPDATE_GOLDEN=1.
inline void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(BB_TEST_DATA) + "/results/golden/" + name;
  if (const char* update = std::getenv("BB_UPDATE_GOLDEN"); update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << "no golden file " << path << "; run with BB_UPDATE_GOLDEN=1 to write it";
  EXPECT_EQ(actual, read_file(path)) << "differs from " << path << " (BB_UPDATE_GOLDEN=1 rewrites it)";
}

} // namespace bb::test::results

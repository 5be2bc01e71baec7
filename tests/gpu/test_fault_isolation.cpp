// A kernel that faults, traps or hangs costs its own configuration only: the supervisor records
// it and a fresh worker runs the rest. Uses bankbench_faults (bankbench plus broken kernels).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>

#include "../cli/cli_runner.hpp"
#include "gpu_test_util.hpp"

namespace {

std::map<std::string, std::pair<std::string, std::string>> statuses(const std::string& db_path) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "select variant || ' ' || params_json, status, coalesce(reason, '') from configurations", -1,
                     &st, nullptr);
  std::map<std::string, std::pair<std::string, std::string>> out;
  while (sqlite3_step(st) == SQLITE_ROW)
    out[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))] = {
        reinterpret_cast<const char*>(sqlite3_column_text(st, 1)),
        reinterpret_cast<const char*>(sqlite3_column_text(st, 2))};
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

} // namespace

TEST(gpu_faults, faults_and_hangs_cost_one_configuration_each) {
  BB_REQUIRE_GPU();
  bb::test::temp_dir tmp;
  const auto db = (tmp.path / "faults.sqlite").string();
  const auto r = bb::test::run_cli_binary(BB_FAULTS_BINARY,
                                          "--db '" + db + "' run --time-limit 8 '" BB_TEST_DATA "/faults/faults.yaml'");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto s = statuses(db);
  ASSERT_EQ(s.size(), 9u) << r.err;
  for (const char* n : {"1024", "4096"}) {
    const std::string p = std::string("{\"n\":") + n + "}";
    EXPECT_EQ(s.at("faulty/ok " + p).first, "ok");
    EXPECT_EQ(s.at("faulty/illegal_address " + p).first, "failed");
    EXPECT_NE(s.at("faulty/illegal_address " + p).second.find("cudaErrorIllegalAddress"), std::string::npos)
        << s.at("faulty/illegal_address " + p).second;
    EXPECT_EQ(s.at("faulty/trap " + p).first, "failed");
    EXPECT_EQ(s.at("faulty/wrong_result " + p).first, "wrong_result");
    EXPECT_NE(s.at("faulty/wrong_result " + p).second.find("1 of "), std::string::npos);
  }
  EXPECT_EQ(s.at("faulty/hang {\"n\":1024}").first, "failed");
  EXPECT_NE(s.at("faulty/hang {\"n\":1024}").second.find("timeout after 8 s"), std::string::npos)
      << s.at("faulty/hang {\"n\":1024}").second;
}

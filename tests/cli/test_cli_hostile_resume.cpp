// `run --resume N` completes a run only with what made it; otherwise exit 2 saying what differs,
// and the run is left as it was.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "cli_db.hpp"

using bb::test::query_text;

namespace {

void exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error != nullptr ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

/// A model run of 9 configurations with 4 of them removed, marked interrupted: resumable.
struct hostile_resume : ::testing::Test {
  bb::test::temp_dir tmp;
  std::string db = (tmp.path / "r.sqlite").string();
  void SetUp() override {
    const auto r = bb::test::run_cli("-q --db '" + db + "' run --backend model experiments/transpose/transpose.yaml",
                                     "CUDA_VISIBLE_DEVICES=");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    exec(db, "PRAGMA foreign_keys = ON; DELETE FROM configurations WHERE seq >= 5; "
             "UPDATE runs SET status = 'interrupted'");
  }
  [[nodiscard]] bb::test::cli_result resume(const std::string& extra = "--backend model") const {
    return bb::test::run_cli("--db '" + db + "' run " + extra + " --resume 1", "CUDA_VISIBLE_DEVICES=");
  }
  void expect_untouched() const {
    EXPECT_EQ(query_text(db, "select count(*) from configurations"), "5");
    EXPECT_EQ(query_text(db, "select status from runs where id = 1"), "interrupted");
  }
};

} // namespace

TEST_F(hostile_resume, the_same_backend_and_rules_complete_the_run) {
  const auto r = resume();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_text(db, "select count(distinct seq) from configurations where run_id = 1"), "9");
  EXPECT_EQ(query_text(db, "select status from runs where id = 1"), "completed");
}

TEST_F(hostile_resume, a_gpu_run_never_resumes_a_model_run) {
  const auto r = resume(""); // --backend cupti, the default
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the run was made with --backend model"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("measurements must never fill a predicted run"), std::string::npos) << r.err;
  expect_untouched();
}

TEST_F(hostile_resume, a_model_run_never_resumes_a_gpu_run) {
  exec(db, "UPDATE gpus SET backend = 'cupti', uuid = 'GPU-1234', name = 'NVIDIA H200'");
  const auto r = resume();
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the run was made with --backend cupti (NVIDIA H200)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("predictions must never fill a measured run"), std::string::npos) << r.err;
  expect_untouched();
}

TEST_F(hostile_resume, other_model_rules_are_another_gpu_identity) {
  exec(db, "UPDATE gpus SET uuid = 'model-rules-0'");
  const auto r = resume();
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("(model-rules-0)"), std::string::npos) << r.err;
  expect_untouched();
}

TEST_F(hostile_resume, an_edited_experiment_text_is_refused) {
  exec(db, "UPDATE runs SET experiment_text = experiment_text || '# edited'");
  const auto r = resume();
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("does not match its sha256"), std::string::npos) << r.err;
  expect_untouched();
}

TEST_F(hostile_resume, an_experiment_file_given_must_be_the_runs_own) {
  const auto r = resume("--backend model experiments/transpose/tiles.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("experiments/transpose/tiles.yaml is not the experiment the run was made from"),
            std::string::npos)
      << r.err;
  expect_untouched();
  const auto same = resume("--backend model experiments/transpose/transpose.yaml");
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(query_text(db, "select count(*) from configurations"), "9");
}

TEST_F(hostile_resume, a_run_still_being_written_is_not_resumed_twice) {
  exec(db, "UPDATE runs SET status = 'running', pid = 1, host = (SELECT host FROM runs WHERE id = 1)");
  const auto r = resume();
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("still being written by process 1"), std::string::npos) << r.err;
  EXPECT_EQ(query_text(db, "select count(*) from configurations"), "5");
}

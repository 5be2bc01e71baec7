// What every command that takes runs accepts: run ids, latest, sessions, experiments, baselines and commits.
#include <gtest/gtest.h>

#include "../data/results/fixtures.hpp"
#include "../data/results/test_helpers.hpp"
#include "runner/common/error.hpp"
#include "runner/query/baseline_doc.hpp"
#include "runner/query/selector.hpp"
#include "runner/store/baselines.hpp"

namespace {

using namespace bb::query;
using namespace bb::test::results;

class query_selector : public ::testing::Test {
protected:
  void SetUp() override {
    build_fixture(m_tmp.file("f.sqlite"));
    m_db.emplace(bb::store::database::open_existing(m_tmp.file("f.sqlite")));
    m_runs = bb::store::run_infos(*m_db);
  }
  std::string refusal(const std::string& spec) {
    try {
      select_side(*m_db, spec, {});
    } catch (const bb::usage_error& e) {
      return e.what();
    }
    return "accepted";
  }
  temp_folder m_tmp;
  std::optional<bb::store::database> m_db;
  std::vector<bb::store::run_info> m_runs;
};

TEST_F(query_selector, run_ids_latest_and_commits) {
  EXPECT_EQ(select_side(*m_db, "3", {}).runs.at(0).id, 3);
  EXPECT_EQ(select_side(*m_db, "run:2", {}).label, "run 2");
  EXPECT_EQ(select_side(*m_db, "latest", {}).runs.at(0).id, 6);
  // Commit 1111 ran on three GPUs (the model counts as one): the newest run on each.
  const side at = select_side(*m_db, "1111aaaa", {});
  EXPECT_EQ(at.label, "commit 1111aaaa1111");
  ASSERT_EQ(at.runs.size(), 3U);
  EXPECT_EQ(at.runs[0].id, 2);
  EXPECT_EQ(at.runs[1].id, 3);
  EXPECT_EQ(at.runs[2].id, 4);
  EXPECT_EQ(at.rows.size(), 27U);
  EXPECT_EQ(select_side(*m_db, "commit:3333", {}).runs.at(0).id, 6);
}

TEST_F(query_selector, latest_as_a_baseline_is_the_run_before_on_the_same_architecture) {
  const side candidate = select_side(*m_db, "6", {});
  const side before = select_side(*m_db, "latest", {}, &candidate);
  ASSERT_EQ(before.runs.size(), 1U);
  EXPECT_EQ(before.runs[0].id, 5);
  const side rtx = select_side(*m_db, "3", {});
  EXPECT_THROW(select_side(*m_db, "latest", {}, &rtx), bb::usage_error);
  EXPECT_EQ(runs_before(m_runs, {m_runs[4]}).at(0).id, 2);
}

TEST_F(query_selector, latest_per_gpu_takes_the_newest_run_of_each) {
  const auto latest = latest_per_gpu(m_runs, "transpose");
  ASSERT_EQ(latest.size(), 3U);
  EXPECT_EQ(latest[0].id, 6);
  EXPECT_EQ(latest[1].id, 3);
  EXPECT_EQ(latest[2].id, 4);
}

TEST_F(query_selector, experiment_is_its_newest_run_on_each_gpu) {
  const side s = select_side(*m_db, "experiment:transpose", {});
  EXPECT_EQ(s.label, "experiment transpose");
  ASSERT_EQ(s.runs.size(), 3U);
  EXPECT_EQ(s.runs[0].id, 3); // oldest first
  EXPECT_EQ(s.runs[1].id, 4);
  EXPECT_EQ(s.runs[2].id, 6);
  EXPECT_NE(refusal("experiment:scan").find("no run of experiment 'scan'"), std::string::npos);
}

TEST_F(query_selector, runs_and_sides_read_one_grammar) {
  auto save = [&](const std::string& name, const std::string& from) {
    auto db = bb::store::database::open(m_tmp.file("f.sqlite"));
    const auto doc = make_baseline_document(name, select_side(*m_db, from, {{}, true}), {}, from,
                                            "2026-11-25T00:00:00Z");
    bb::store::save_baseline(db, baseline_entry_of(doc, from), false);
  };
  save("main", "commit:1111");
  for (const char* spec :
       {"2", "run:2", "latest", "experiment:transpose", "1111aaaa", "commit:3333", "main", "baseline:main"}) {
    std::vector<std::int64_t> from_runs, from_side;
    for (const auto& r : select_runs(*m_db, spec)) from_runs.push_back(r.id);
    for (const auto& r : resolve_spec(*m_db, spec).runs) from_side.push_back(r.id);
    EXPECT_EQ(from_runs, from_side) << spec;
    EXPECT_FALSE(from_runs.empty()) << spec;
  }
  // A baseline names the runs it was saved from.
  std::vector<std::int64_t> ids;
  for (const auto& r : select_runs(*m_db, "main")) ids.push_back(r.id);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{2, 3, 4}));
  EXPECT_TRUE(select_side(*m_db, "main", {}).is_baseline);
  // ... and refuses where this database does not hold them.
  {
    auto db = bb::store::database::open(m_tmp.file("f.sqlite"));
    auto entry = *bb::store::find_baseline(db, "main");
    auto doc = nlohmann::json::parse(entry.content_json);
    for (auto& r : doc["runs"]) r["host"] = "elsewhere";
    bb::store::save_baseline(db, baseline_entry_of(doc, "file elsewhere.json"), true);
  }
  try {
    select_runs(*m_db, "main");
    FAIL() << "no bb::usage_error";
  } catch (const bb::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("baseline main was saved from runs that"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("`bankbench baseline show main`"), std::string::npos) << e.what();
  }
}

TEST_F(query_selector, unknown_specs_say_what_would_do) {
  EXPECT_EQ(refusal("99"), "no run 99 in " + m_tmp.file("f.sqlite") + "; `bankbench list runs` lists the runs there");
  EXPECT_NE(refusal("nightly").find("no run, session, baseline, experiment or commit 'nightly'"), std::string::npos);
  EXPECT_NE(refusal("baseline:nightly").find("no baseline 'nightly'"), std::string::npos);
  EXPECT_NE(refusal("abc"), "accepted"); // three hex digits are too few for a commit
}

} // namespace

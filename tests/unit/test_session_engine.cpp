// The run engine on the bank model: run_in_process plans and executes experiments on a run_plan,
// without a GPU and without the command line, tells its events as it goes, completes a run from
// a resume point, and reopens an interrupted run.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <algorithm>

#include "runner/common/error.hpp"
#include "runner/common/metrics.hpp"
#include "runner/config/experiment.hpp"
#include "runner/registry/registry.hpp"
#include "runner/session/resume_check.hpp"
#include "runner/session/run_records.hpp"
#include "runner/session/run_session.hpp"
#include "runner/store/database.hpp"

namespace fs = std::filesystem;

namespace {

/// Every event, as a line ("run 0 1", "start 0 3", ...).
class recorded_events final : public bb::session::session_events {
public:
  std::vector<std::string> lines;
  void session_begun(std::int64_t id) override { add("session", 0, id); }
  void run_begun(std::size_t e, std::int64_t id) override { add("run", e, id); }
  void configuration_started(std::size_t e, int seq) override { add("start", e, seq); }
  void configuration_timing(std::size_t e, int seq) override { add("timing", e, seq); }
  void configuration_stored(std::size_t e, int seq) override { add("stored", e, seq); }

private:
  void add(const char* what, std::size_t e, std::int64_t v) {
    lines.push_back(std::string(what) + " " + std::to_string(e) + " " + std::to_string(v));
  }
};

class session_engine : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = fs::temp_directory_path() / ("bb_test_session_engine_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    m_plan.db = (m_dir / "results.sqlite").string();
    m_plan.backend = bb::backend::model;
    m_plan.command_line = "bankbench run --backend model transpose.yaml";
    m_experiments.push_back(bb::config::load_experiment_file(
        std::string(BB_SOURCE_DIR) + "/experiments/transpose/transpose.yaml", bb::registry::instance()));
  }
  void TearDown() override { fs::remove_all(m_dir); }

  fs::path m_dir;
  bb::session::run_plan m_plan;
  std::vector<bb::config::experiment> m_experiments;
};

} // namespace

TEST_F(session_engine, the_model_runs_every_configuration_and_stores_it) {
  bb::session::resume_point start(1);
  recorded_events events;
  m_plan.compile_jobs = 1; // the model predicts 4 configurations per thread at a time
  EXPECT_EQ(bb::session::run_in_process(m_experiments, m_plan, start, &events), 0);
  ASSERT_NE(start.session_id, 0);
  ASSERT_NE(start.run_ids[0], 0);

  const auto configs = bb::config::expand(m_experiments[0]);
  ASSERT_EQ(configs.size(), 9u);
  std::vector<std::string> want = {"session 0 " + std::to_string(start.session_id),
                                   "run 0 " + std::to_string(start.run_ids[0])};
  for (std::size_t first = 0; first < configs.size(); first += 4) { // a batch started, then stored
    const std::size_t end = std::min<std::size_t>(first + 4, configs.size());
    for (std::size_t i = first; i < end; ++i) want.push_back("start 0 " + std::to_string(configs[i].index));
    for (std::size_t i = first; i < end; ++i) want.push_back("stored 0 " + std::to_string(configs[i].index));
  }
  EXPECT_EQ(events.lines, want);

  const auto db = bb::store::database::open_existing(m_plan.db);
  const auto rows = db.configurations(start.run_ids[0]);
  ASSERT_EQ(rows.size(), 9u);
  for (const auto& r : rows) {
    EXPECT_EQ(r.status, bb::config_status::ok) << r.variant << " " << r.params_json;
    EXPECT_FALSE(r.expectations.empty()) << r.variant;
    for (const auto& e : r.expectations) EXPECT_TRUE(e.passed) << r.variant << ": " << e.text;
  }
  const auto naive = rows.front();
  EXPECT_EQ(naive.variant, "transpose/naive");
  EXPECT_DOUBLE_EQ(naive.metric_means.at("load_wavefronts_per_request"), 32.0);
  const auto run = db.run(start.run_ids[0]);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, bb::run_status::completed);
  EXPECT_EQ(run->gpu.backend, "model");
  EXPECT_EQ(run->run.command_line, m_plan.command_line);
}

TEST_F(session_engine, a_resume_point_runs_only_what_it_leaves_to_do) {
  bb::session::resume_point start(1);
  for (int seq = 0; seq < 9; ++seq)
    if (seq % 3 != 0) start.done[0].insert(seq); // left: 0, 3, 6
  recorded_events events;
  EXPECT_EQ(bb::session::run_in_process(m_experiments, m_plan, start, &events), 0);
  const auto db = bb::store::database::open_existing(m_plan.db);
  const auto rows = db.configurations(start.run_ids[0]);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].seq, 0);
  EXPECT_EQ(rows[1].seq, 3);
  EXPECT_EQ(rows[2].seq, 6);
  EXPECT_EQ(events.lines.back(), "stored 0 6");
}

TEST_F(session_engine, a_share_without_configurations_begins_no_run) {
  bb::session::resume_point start(1);
  for (int seq = 0; seq < 9; ++seq) start.done[0].insert(seq);
  EXPECT_EQ(bb::session::run_in_process(m_experiments, m_plan, start, nullptr), 0);
  EXPECT_NE(start.session_id, 0);
  EXPECT_EQ(start.run_ids[0], 0);
}

TEST(session_plan, passes_follow_the_flags) {
  using bb::session::passes;
  const auto all = passes::from_flags(false, false, false);
  EXPECT_TRUE(all.counters && all.timing && !all.launch_once);
  const auto no_counters = passes::from_flags(true, false, false);
  EXPECT_TRUE(!no_counters.counters && no_counters.timing);
  const auto no_timing = passes::from_flags(false, true, false);
  EXPECT_TRUE(no_timing.counters && !no_timing.timing);
  const auto once = passes::from_flags(false, false, true);
  EXPECT_TRUE(!once.counters && !once.timing && once.launch_once);

  bb::session::run_plan p;
  p.passes = once;
  EXPECT_FALSE(p.counts());
  EXPECT_TRUE(p.in_workers());
  p.backend = bb::backend::model;
  EXPECT_TRUE(p.counts()); // the model's predictions are stored whatever the flags say
  EXPECT_FALSE(p.in_workers());
  p.devices = {0, 1}; // several devices: a worker each, the model too
  EXPECT_TRUE(p.in_workers());
}

TEST(session_plan, resume_command_names_the_database_and_the_model) {
  bb::session::run_plan p;
  p.db = "r.sqlite";
  EXPECT_EQ(bb::session::resume_command(p, 7), "bankbench --db 'r.sqlite' run --resume 7");
  p.backend = bb::backend::model;
  EXPECT_EQ(bb::session::resume_command(p, 7), "bankbench --db 'r.sqlite' run --backend model --resume 7");
}

TEST_F(session_engine, reopen_run_resumes_an_interrupted_run_with_its_own_experiment) {
  bb::session::resume_point first(1);
  for (int seq = 5; seq < 9; ++seq) first.done[0].insert(seq); // stored: 0 to 4
  ASSERT_EQ(bb::session::run_in_process(m_experiments, m_plan, first, nullptr), 0);
  const auto run_id = first.run_ids[0];
  bb::store::database::open(m_plan.db).finish_run(run_id, bb::run_status::interrupted);

  auto gpu = m_plan;
  gpu.backend = bb::backend::cupti; // measurements must never fill a predicted run
  EXPECT_THROW(bb::session::reopen_run(gpu, run_id, {}), bb::usage_error);
  EXPECT_THROW(bb::session::reopen_run(m_plan, run_id + 1, {}), bb::usage_error);

  auto resumed = bb::session::reopen_run(m_plan, run_id, {});
  ASSERT_EQ(resumed.experiments.size(), 1u);
  EXPECT_EQ(resumed.experiments[0].name, "transpose");
  EXPECT_EQ(resumed.start.run_ids, std::vector<std::int64_t>{run_id});
  EXPECT_EQ(resumed.start.session_id, first.session_id);
  EXPECT_EQ(resumed.start.done[0], (std::set<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(bb::session::run_in_process(resumed.experiments, m_plan, resumed.start, nullptr), 0);
  const auto db = bb::store::database::open_existing(m_plan.db);
  EXPECT_EQ(db.configurations(run_id).size(), 9u);
  EXPECT_EQ(db.run(run_id)->status, bb::run_status::completed);
}

namespace {

bb::config::experiment named(const std::string& name, std::vector<std::string> metrics) {
  bb::config::experiment e;
  e.name = name;
  e.metrics = bb::metrics::metric_list::listed(std::move(metrics));
  return e;
}

TEST(session_engine_order, experiments_with_one_metric_list_run_together_in_the_given_order) {
  const std::vector<std::string> plain{"a", "b"}, kinds{"a", "b", "c"};
  std::vector<bb::config::experiment> es{named("colsum", plain), named("cp_async", kinds), named("fft", plain),
                                         named("histogram", kinds), named("layout", plain)};
  bb::session::group_by_metric_list(es);
  std::vector<std::string> order;
  for (const auto& e : es) order.push_back(e.name);
  EXPECT_EQ(order, (std::vector<std::string>{"colsum", "fft", "layout", "cp_async", "histogram"}));
}

TEST(session_engine_order, a_suite_of_one_metric_list_keeps_its_order) {
  std::vector<bb::config::experiment> es{named("b", {"x"}), named("a", {"x"}), named("c", {"x"})};
  bb::session::group_by_metric_list(es);
  EXPECT_EQ(es[0].name, "b");
  EXPECT_EQ(es[1].name, "a");
  EXPECT_EQ(es[2].name, "c");
}

} // namespace

TEST_F(session_engine, a_metric_that_is_not_a_number_is_left_out_and_the_configuration_stored) {
  // A ratio metric over zero events evaluates to NaN; SQLite would bind it as NULL, which the
  // metrics table refuses, and the whole run stopped. The value is left out, the rest is kept.
  const auto configs = bb::config::expand(m_experiments[0]);
  bb::launch::config_result r;
  r.ranges.push_back(
      {{bb::metrics::k_ld_requests, 1024.0},
       {bb::metrics::k_ld_wavefronts, 32768.0},
       {"smsp__sass_average_data_bytes_per_wavefront_mem_shared.ratio", std::numeric_limits<double>::quiet_NaN()},
       {bb::metrics::k_st_requests, 0.0},
       {bb::metrics::k_st_wavefronts, std::numeric_limits<double>::infinity()}});
  const auto rec = bb::session::configuration_record_of(m_experiments[0], configs[0], r, nullptr, 0);
  ASSERT_FALSE(rec.launches.empty());
  for (const auto& v : rec.launches[0].values) EXPECT_TRUE(std::isfinite(v.value)) << v.name;
  EXPECT_EQ(bb::session::observed_value(rec, "load_wavefronts_per_request"), 32.0);
  EXPECT_FALSE(bb::session::observed_value(rec, "smsp__sass_average_data_bytes_per_wavefront_mem_shared.ratio"));
  EXPECT_FALSE(bb::session::observed_value(rec, bb::metrics::k_st_wavefronts));

  auto db = bb::store::database::open(m_plan.db);
  bb::store::gpu_record g;
  g.uuid = "GPU-1";
  g.name = "H100";
  bb::store::run_record run;
  run.experiment_name = "transpose";
  run.experiment_path = "experiments/transpose/transpose.yaml";
  const auto run_id = db.begin_run(db.upsert_gpu(g), run);
  ASSERT_NO_THROW(db.add_configuration(run_id, rec));
  const auto rows = db.configurations(run_id);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].metric_means.at(bb::metrics::k_ld_wavefronts), 32768.0);
  EXPECT_EQ(rows[0].metric_means.count(bb::metrics::k_st_wavefronts), 0u);
}

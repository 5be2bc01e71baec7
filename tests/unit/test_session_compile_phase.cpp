// The compile phase of `run`, without a GPU (the architecture given): the distinct kernels of the
// configurations left to run are compiled once, a failing one is logged once, and what a worker
// forked afterwards asks for comes from what the phase remembered.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "runner/config/experiment.hpp"
#include "runner/registry/registry.hpp"
#include "runner/session/compile_phase.hpp"
#include "runner/source/known_kernels.hpp"
#include "runner/source/variants.hpp"
#include "occurrences.hpp"

namespace fs = std::filesystem;

namespace {

/// tests/data/source/mixed (two good kernels and a broken one over three sizes), in a folder of its
/// own with its own cache.
struct mixed_sweep {
  fs::path dir = fs::temp_directory_path() / ("bb_compile_phase_" + std::to_string(::getpid()) + "_" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::vector<bb::config::experiment> experiments;
  std::ostringstream log;
  std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();

  mixed_sweep() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy(std::string(BB_TEST_DATA) + "/source/mixed", dir); // a copy: a test removes broken.cu
    experiments.push_back(bb::config::load_experiment_file((dir / "mixed.yaml").string(), bb::registry::instance()));
    ::setenv("BB_CACHE_DIR", cache().c_str(), 1);
    auto logger = std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
    logger->set_pattern("%l: %v");
    spdlog::set_default_logger(logger);
  }
  ~mixed_sweep() {
    spdlog::set_default_logger(previous);
    ::unsetenv("BB_CACHE_DIR");
    fs::remove_all(dir);
  }
  [[nodiscard]] std::string cache() const { return (dir / "cache").string(); }
  [[nodiscard]] std::size_t cubins() const {
    std::size_t n = 0;
    if (fs::is_directory(cache()))
      for (const auto& e : fs::directory_iterator(cache())) n += e.path().extension() == ".cubin" ? 1 : 0;
    return n;
  }
  /// The request a worker makes for configuration `seq` on an sm_90 GPU.
  [[nodiscard]] bb::source::compile_request request(std::size_t seq) const {
    const auto& e = experiments.front();
    const auto c = bb::config::expand(e).at(seq);
    return bb::source::request_of(*e.find_source(c.variant), c.params, "sm_90");
  }
};

TEST(session_compile_phase, compiles_each_kernel_once_and_logs_a_failure_once) {
  mixed_sweep sweep;
  bb::session::run_plan plan;
  plan.compile_jobs = 2;
  const bb::session::resume_point start(1);
  const auto s = bb::session::compile_for(sweep.experiments, plan, start, {"sm_90"});
  EXPECT_EQ(s.kernels, 3u);
  EXPECT_EQ(s.compiled, 2u);
  EXPECT_EQ(s.failed, 1u);
  EXPECT_EQ(sweep.cubins(), 2u);
  const std::string broken = (sweep.dir / "broken.cu").string();
  const std::string error = broken + ":3: error: identifier \"undeclared_value\" is undefined";
  const std::string log = sweep.log.str();
  EXPECT_EQ(bb::test::occurrences(log, error), 1u) << log;
  EXPECT_NE(log.find(sweep.experiments[0].path +
                     ": variant 'bad' (n=64) fails (the same error fails 2 more configurations: variant 'bad' "
                     "(n=128), variant 'bad' (n=256)); the other configurations run"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("info: 3 kernels for sm_90 in "), std::string::npos) << log;
  EXPECT_NE(log.find(" s on 2 threads: 2 compiled, 0 from the cache, 1 failed"), std::string::npos) << log;

  // A worker forked now: the broken kernel fails at once with its log, not compiled again (its
  // file is gone, which a compile would say) and not logged again.
  fs::remove(broken);
  for (const std::size_t seq : {6, 7, 8}) {
    try {
      (void)bb::source::compile_known(sweep.request(seq), sweep.cache());
      ADD_FAILURE() << "configuration " << seq << " compiled";
    } catch (const bb::source::compile_error& e) {
      EXPECT_NE(std::string(e.what()).find(error), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(bb::test::occurrences(sweep.log.str(), error), 1u) << sweep.log.str();
  // The good ones come from the cache, the phase's compile time with the first configuration.
  const auto first = bb::source::compile_known(sweep.request(0), sweep.cache());
  const auto second = bb::source::compile_known(sweep.request(1), sweep.cache());
  EXPECT_TRUE(first.cache_hit);
  EXPECT_GT(first.compile_ms, 0);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.compile_ms, 0);
}

TEST(session_compile_phase, only_what_is_left_to_run_is_compiled_and_a_warm_cache_is_quiet) {
  mixed_sweep sweep;
  bb::session::run_plan plan;
  bb::session::resume_point start(1);
  start.done[0] = {3, 4, 5, 6, 7, 8}; // thrice and bad are stored already (a resumed run, or another share)
  const auto cold = bb::session::compile_for(sweep.experiments, plan, start, {"sm_90"});
  EXPECT_EQ(cold.kernels, 1u);
  EXPECT_EQ(cold.compiled, 1u);
  EXPECT_EQ(cold.failed, 0u);
  EXPECT_EQ(sweep.cubins(), 1u);

  sweep.log.str("");
  const auto warm = bb::session::compile_for(sweep.experiments, plan, start, {"sm_90"});
  EXPECT_EQ(warm.cache_hits, 1u);
  EXPECT_EQ(warm.compiled, 0u);
  EXPECT_EQ(sweep.log.str(), "");

  // Two architectures (GPUs of two kinds): a kernel each.
  const auto two = bb::session::compile_for(sweep.experiments, plan, start, {"sm_90", "sm_80"});
  EXPECT_EQ(two.kernels, 2u);
  EXPECT_EQ(sweep.cubins(), 2u);
}

TEST(session_compile_phase, nothing_for_the_model_or_without_a_cache) {
  mixed_sweep sweep;
  bb::session::run_plan plan;
  plan.backend = bb::backend::model;
  const bb::session::resume_point start(1);
  EXPECT_EQ(bb::session::compile_for(sweep.experiments, plan, start, {"sm_90"}).kernels, 0u);
  EXPECT_EQ(bb::session::compile_before_gpu(sweep.experiments, plan, start).kernels, 0u);
  plan.backend = bb::backend::cupti;
  ::setenv("BB_CACHE_DIR", "", 1);
  EXPECT_EQ(bb::session::compile_for(sweep.experiments, plan, start, {"sm_90"}).kernels, 0u);
  EXPECT_EQ(sweep.cubins(), 0u);
}

} // namespace

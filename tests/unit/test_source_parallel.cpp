// compile_parallel and what a process remembers of kernels, with no GPU.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "runner/source/known_kernels.hpp"
#include "runner/source/parallel_compile.hpp"

namespace {

namespace fs = std::filesystem;
using bb::source::compile_request;

const std::string k_good = std::string(BB_TEST_DATA) + "/source/good.cu";

struct temp_cache {
  std::string dir = (fs::temp_directory_path() / ("bb_parallel_" + std::to_string(::getpid()) + "_" +
                                                  ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                        .string();
  temp_cache() { fs::remove_all(dir); }
  ~temp_cache() { fs::remove_all(dir); }
};

TEST(source_parallel, request_ids_differ_in_every_field) {
  const compile_request base{k_good, "scale<2>", {"A=1"}, {"/inc"}, "sm_90"};
  std::set<std::string> ids{bb::source::request_id(base)};
  compile_request other = base;
  other.source_path = k_good + "x";
  ids.insert(bb::source::request_id(other));
  other = base;
  other.kernel = "scale<3>";
  ids.insert(bb::source::request_id(other));
  other = base;
  other.defines = {"A=2"};
  ids.insert(bb::source::request_id(other));
  other = base;
  other.include_dirs = {"/other"};
  ids.insert(bb::source::request_id(other));
  other = base;
  other.arch = "sm_80";
  ids.insert(bb::source::request_id(other));
  EXPECT_EQ(ids.size(), 6u);
  EXPECT_EQ(bb::source::request_id(base), bb::source::request_id(compile_request(base)));
}

TEST(source_parallel, jobs_come_from_the_environment_or_the_machine) {
  const unsigned machine = std::max(1u, std::thread::hardware_concurrency());
  ::setenv("BB_COMPILE_JOBS", "3", 1);
  EXPECT_EQ(bb::source::default_jobs(), 3u);
  ::setenv("BB_COMPILE_JOBS", "three", 1);
  EXPECT_EQ(bb::source::default_jobs(), machine);
  ::setenv("BB_COMPILE_JOBS", "0", 1);
  EXPECT_EQ(bb::source::default_jobs(), machine);
  ::unsetenv("BB_COMPILE_JOBS");
  EXPECT_EQ(bb::source::default_jobs(), machine);
}

TEST(source_parallel, outcomes_in_request_order_with_errors_as_outcomes) {
  temp_cache cache;
  const std::vector<compile_request> requests = {{k_good, "scale<7>", {}, {}, "sm_90"},
                                                 {k_good + ".absent", "scale<7>", {}, {}, "sm_90"},
                                                 {k_good, "scale<8>", {}, {}, "sm_90"}};
  bb::source::parallel_options o;
  o.jobs = 3;
  o.cache_dir = cache.dir;
  const auto out = bb::source::compile_parallel(requests, o);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(out[0].ok);
  EXPECT_FALSE(out[1].ok);
  EXPECT_TRUE(out[1].attempted);
  EXPECT_NE(out[1].error.find("cannot read the kernel source: no such file"), std::string::npos) << out[1].error;
  EXPECT_TRUE(out[2].ok);
  EXPECT_NE(out[0].key, out[2].key);
  EXPECT_GT(out[0].compile_ms, 0);
}

TEST(source_parallel, a_stop_leaves_the_requests_not_begun) {
  temp_cache cache;
  const std::atomic<bool> stop{true};
  bb::source::parallel_options o;
  o.cache_dir = cache.dir;
  o.stop = &stop;
  const auto out = bb::source::compile_parallel({{k_good, "scale<9>", {}, {}, "sm_90"}}, o);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].attempted);
  EXPECT_FALSE(fs::exists(cache.dir));
}

TEST(source_parallel, a_remembered_failure_is_not_compiled_again) {
  // The file does not exist: compiling would say so. The remembered error comes instead.
  const compile_request rq{k_good + ".gone", "scale<2>", {}, {}, "sm_90"};
  bb::source::compile_outcome failed;
  failed.attempted = true;
  failed.error = "kernels.cu: kernel 'scale<2>' does not compile for sm_90:\nkernels.cu:5: error: remembered";
  bb::source::remember(rq, failed);
  for (int i = 0; i < 2; ++i) {
    try {
      (void)bb::source::compile_known(rq, "");
      FAIL() << "no error";
    } catch (const bb::source::compile_error& e) {
      EXPECT_EQ(std::string(e.what()), failed.error);
    }
  }
}

TEST(source_parallel, a_kernel_compiled_before_reports_its_time_once) {
  temp_cache cache;
  const compile_request rq{k_good, "scale<11>", {}, {}, "sm_90"};
  bb::source::parallel_options o;
  o.cache_dir = cache.dir;
  const auto out = bb::source::compile_parallel({rq}, o);
  ASSERT_TRUE(out[0].ok);
  bb::source::remember(rq, out[0]);
  const auto first = bb::source::compile_known(rq, cache.dir);
  const auto second = bb::source::compile_known(rq, cache.dir);
  EXPECT_TRUE(first.cache_hit);
  EXPECT_EQ(first.compile_ms, out[0].compile_ms); // compiled by this run before: its time, once
  EXPECT_GT(first.compile_ms, 0);
  EXPECT_EQ(second.compile_ms, 0);
}

} // namespace

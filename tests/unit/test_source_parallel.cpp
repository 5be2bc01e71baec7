// compile_parallel and what a process remembers of kernels, with no GPU.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>

#include "runner/source/compile_server.hpp"
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

// A compile server that stands in for bankbench's: it notes its start in `starts` (a line each) and
// answers every request with a compile of 1.5 ms whose key is "served", compiling nothing.
struct fake_server {
  fs::path dir;
  explicit fake_server(const std::string& cache_dir) : dir(fs::path(cache_dir + "_server")) {
    fs::create_directories(dir);
    std::ofstream(dir / "server")
        << "#!/bin/sh\necho started >> '" << (dir / "starts").string()
        << "'\nwhile IFS= read -r line; do\n  echo "
           "'{\"ok\":true,\"cache_hit\":false,\"compile_ms\":1.5,\"key\":\"served\"}'\ndone\n";
    fs::permissions(dir / "server", fs::perms::owner_all);
    bb::source::set_compile_server((dir / "server").string());
  }
  ~fake_server() {
    bb::source::set_compile_server("");
    fs::remove_all(dir);
  }
  [[nodiscard]] std::size_t starts() const {
    std::ifstream in(dir / "starts");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  }
};

std::vector<compile_request> scales(int from, int to) {
  std::vector<compile_request> out;
  for (int f = from; f <= to; ++f) out.push_back({k_good, "scale<" + std::to_string(f) + ">", {}, {}, "sm_90"});
  return out;
}

TEST(source_parallel, a_server_is_started_for_each_miss_up_to_the_jobs) {
  temp_cache cache;
  bb::source::parallel_options o;
  o.cache_dir = cache.dir;
  o.jobs = 1;
  const auto cached = bb::source::compile_parallel(scales(21, 22), o); // in this process: no server named
  ASSERT_TRUE(cached[0].ok && cached[1].ok);
  const fake_server server(cache.dir);
  o.jobs = 8;
  const auto out = bb::source::compile_parallel(scales(21, 25), o);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(server.starts(), 3u); // three misses: three servers, not eight
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(out[i].cache_hit);
    EXPECT_EQ(out[i].key, cached[i].key);
    EXPECT_EQ(out[i].compile_ms, 0);
  }
  for (int i = 2; i < 5; ++i) {
    EXPECT_TRUE(out[i].ok);
    EXPECT_FALSE(out[i].cache_hit);
    EXPECT_EQ(out[i].key, "served") << i;
    EXPECT_EQ(out[i].compile_ms, 1.5);
  }
}

TEST(source_parallel, no_more_servers_than_jobs) {
  temp_cache cache;
  const fake_server server(cache.dir);
  bb::source::parallel_options o;
  o.cache_dir = cache.dir;
  o.jobs = 2;
  const auto out = bb::source::compile_parallel(scales(31, 36), o);
  EXPECT_EQ(server.starts(), 2u);
  for (const auto& x : out) EXPECT_EQ(x.key, "served");
}

TEST(source_parallel, no_server_is_started_when_every_kernel_is_in_the_cache) {
  temp_cache cache;
  bb::source::parallel_options o;
  o.cache_dir = cache.dir;
  o.jobs = 1;
  const auto cached = bb::source::compile_parallel(scales(41, 43), o);
  const fake_server server(cache.dir);
  o.jobs = 4;
  const auto out = bb::source::compile_parallel(scales(41, 43), o);
  EXPECT_EQ(server.starts(), 0u);
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_TRUE(out[i].cache_hit);
    EXPECT_EQ(out[i].key, cached[i].key);
  }
}

TEST(source_parallel, kernels_reading_more_headers_are_compiled_first) {
  EXPECT_EQ(bb::source::compile_order({0, 3, 0, 120, 3}), (std::vector<std::size_t>{3, 1, 4, 0, 2}));
  EXPECT_EQ(bb::source::compile_order({}), std::vector<std::size_t>{});
}

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
  other = base;
  other.ptx_only = true;
  ids.insert(bb::source::request_id(other));
  EXPECT_EQ(ids.size(), 7u);
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

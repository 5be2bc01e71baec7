// A sweep's distinct kernels compiled once each, in parallel, with no GPU: deduplication, the same
// cache as a serial compile, and a failing kernel that costs only its own configurations.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "runner/config/experiment.hpp"
#include "runner/registry/registry.hpp"
#include "runner/source/compile.hpp"
#include "runner/source/sweep_kernels.hpp"

namespace {

namespace fs = std::filesystem;

struct sweep_dir {
  fs::path path = fs::temp_directory_path() / ("bb_sweep_kernels_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  sweep_dir() {
    fs::remove_all(path);
    fs::create_directories(path);
    std::ofstream(path / "kernels.cu") << "template <int K> __global__ void scale(float* out, int n) {\n"
                                          "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                          "  if (i < n) out[i] = static_cast<float>(K * i) + EXTRA;\n"
                                          "}\n";
    std::ofstream(path / "broken.cu") << "// the error is on line 3\n"
                                         "__global__ void broken(float* out, int n) {\n"
                                         "  out[0] = not_declared;\n"
                                         "}\n";
  }
  ~sweep_dir() { fs::remove_all(path); }

  [[nodiscard]] std::string cache(const std::string& name) const { return (path / name).string(); }

  /// An experiment file of `variants` (YAML list items) over `axes`, loaded.
  [[nodiscard]] bb::config::experiment experiment(const std::string& name, const std::string& variants,
                                                  const std::string& axes) const {
    const fs::path file = path / (name + ".yaml");
    std::ofstream(file) << "name: " << name
                        << "\n"
                           "description: kernels for the compile tests\n"
                           "source:\n"
                           "  file: kernels.cu\n"
                           "  kernel: scale<2>\n"
                           "  grid: ceil_div(n, 128)\n"
                           "  block: 128\n"
                           "  defines: {EXTRA: 0}\n"
                           "  args:\n"
                           "    - {buffer: out, type: float, count: n, output: true}\n"
                           "    - {scalar: n, type: int32}\n"
                           "variants:\n"
                        << variants << "axes: " << axes << "\n";
    return bb::config::load_experiment_file(file.string(), bb::registry::instance());
  }
};

std::size_t cubins(const std::string& dir) {
  std::size_t n = 0;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".cubin" ? 1 : 0;
  return n;
}

std::map<std::string, std::string> cache_files(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename() == "manifests") continue; // the include tracking's, not kernels
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    files[e.path().filename().string()] = bytes.str();
  }
  return files;
}

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

bb::source::parallel_options options(const std::string& cache, unsigned jobs) {
  bb::source::parallel_options o;
  o.jobs = jobs;
  o.cache_dir = cache;
  return o;
}

TEST(source_sweep_kernels, configurations_sharing_a_kernel_compile_it_once) {
  sweep_dir dir;
  // Two variants of the same kernel over five sizes: ten configurations, one kernel.
  const auto e = dir.experiment("shared", "  - {name: a}\n  - {name: b}\n", "{n: [64, 128, 256, 512, 1024]}");
  bb::source::sweep_kernels kernels;
  kernels.add(e, 0, {"sm_90"});
  ASSERT_EQ(kernels.kernels().size(), 1u);
  EXPECT_EQ(kernels.kernels()[0].users.size(), 10u);
  EXPECT_EQ(kernels.configurations(), 10u);
  kernels.compile(options(dir.cache("cache"), 4));
  EXPECT_TRUE(kernels.kernels()[0].outcome.ok);
  EXPECT_FALSE(kernels.kernels()[0].outcome.cache_hit);
  EXPECT_EQ(cubins(dir.cache("cache")), 1u);
  const auto counts = kernels.per_experiment(1);
  EXPECT_EQ(counts[0].kernels, 1u);
  EXPECT_EQ(counts[0].compiled, 1u);

  // Two architectures: one kernel each. Only the wanted configurations count.
  bb::source::sweep_kernels two;
  two.add(e, 0, {"sm_90", "sm_80"}, [](std::size_t seq) { return seq % 5 == 0; });
  EXPECT_EQ(two.kernels().size(), 2u);
  EXPECT_EQ(two.configurations(), 4u); // configurations 0 and 5, for each architecture
}

TEST(source_sweep_kernels, a_parallel_compile_fills_the_cache_as_a_serial_one) {
  sweep_dir dir;
  const auto e = dir.experiment("many", "  - {name: k, kernel: \"scale<k>\"}\n", "{n: [64], k: [1, 2, 3, 4, 5, 6]}");
  bb::source::sweep_kernels serial, parallel;
  serial.add(e, 0, {"sm_90"});
  parallel.add(e, 0, {"sm_90"});
  ASSERT_EQ(serial.kernels().size(), 6u);
  serial.compile(options(dir.cache("serial"), 1));
  parallel.compile(options(dir.cache("parallel"), 4));
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_TRUE(parallel.kernels()[i].outcome.ok) << parallel.kernels()[i].outcome.error;
    EXPECT_EQ(parallel.kernels()[i].outcome.key, serial.kernels()[i].outcome.key) << i;
  }
  const auto a = cache_files(dir.cache("serial")), b = cache_files(dir.cache("parallel"));
  EXPECT_EQ(a.size(), 6u);
  EXPECT_EQ(a, b); // the same entries, byte for byte, and no temporary file left in either

  // Again, in parallel: every kernel from the cache.
  bb::source::sweep_kernels again;
  again.add(e, 0, {"sm_90"});
  again.compile(options(dir.cache("parallel"), 4));
  EXPECT_EQ(again.per_experiment(1)[0].cache_hits, 6u);
}

TEST(source_sweep_kernels, a_kernel_that_does_not_compile_costs_its_own_configurations_and_is_reported_once) {
  sweep_dir dir;
  const auto e = dir.experiment("mixed",
                                "  - {name: good, kernel: \"scale<k>\"}\n"
                                "  - {name: bad, file: broken.cu, kernel: broken}\n",
                                "{n: [64, 128, 256], k: [1, 2]}");
  bb::source::sweep_kernels kernels;
  kernels.add(e, 0, {"sm_90"});
  ASSERT_EQ(kernels.kernels().size(), 3u); // scale<1>, scale<2>, broken
  kernels.compile(options(dir.cache("cache"), 2));
  EXPECT_EQ(cubins(dir.cache("cache")), 2u); // the good ones are cached
  const auto counts = kernels.per_experiment(1);
  EXPECT_EQ(counts[0].compiled, 2u);
  EXPECT_EQ(counts[0].failed, 1u);
  const auto groups = kernels.failures();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].configurations(), 6u); // bad at every n and k

  const auto problems = kernels.diagnostics({e});
  ASSERT_EQ(problems.size(), 1u);
  const std::string text = problems[0].to_string();
  const std::string cu = (dir.path / "broken.cu").string();
  EXPECT_EQ(count_of(text, cu + ":3: error: identifier \"not_declared\" is undefined"), 1u) << text;
  EXPECT_EQ(text.rfind(e.path + ":", 0), 0u) << text; // at the variant's line of the experiment file
  EXPECT_NE(text.find("variants.bad: variant 'bad' (k=1 n=64): "), std::string::npos) << text;
  EXPECT_NE(text.find(
                "(the same error fails 5 more configurations: variant 'bad' (k=2 n=64), variant 'bad' (k=1 n=128), "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(" and 1 more)"), std::string::npos) << text;
}

TEST(source_sweep_kernels, kernels_failing_with_the_same_log_are_reported_once) {
  sweep_dir dir;
  std::ofstream(dir.path / "kernels.cu") << "#include <no_such_header_anywhere.h>\n"
                                            "template <int K> __global__ void scale(float* out, int n) {}\n";
  const auto e = dir.experiment("header", "  - {name: k, kernel: \"scale<k>\"}\n", "{n: [64], k: [1, 2, 3]}");
  bb::source::sweep_kernels kernels;
  kernels.add(e, 0, {"sm_90"});
  kernels.compile(options(dir.cache("cache"), 3));
  EXPECT_EQ(kernels.per_experiment(1)[0].failed, 3u);
  const auto groups = kernels.failures();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].kernels.size(), 3u);
  const auto problems = kernels.diagnostics({e});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(count_of(problems[0].message, "cannot open <no_such_header_anywhere.h>: looked in"), 1u)
      << problems[0].message;
  EXPECT_NE(problems[0].message.find("the same error fails 2 more configurations: variant 'k' (k=2 n=64), variant "
                                     "'k' (k=3 n=64))"),
            std::string::npos)
      << problems[0].message;
}

TEST(source_sweep_kernels, a_configuration_whose_expressions_fail_is_refused_not_compiled) {
  sweep_dir dir;
  const auto e = dir.experiment("refused", "  - {name: a, grid: n / 128}\n", "{n: [64, 256]}");
  bb::source::sweep_kernels kernels;
  kernels.add(e, 0, {"sm_90"});
  ASSERT_EQ(kernels.refused().size(), 1u); // n = 64: a grid of 0 blocks
  EXPECT_EQ(kernels.refused()[0].user.params, "n=64");
  EXPECT_EQ(kernels.configurations(), 1u);
  const auto problems = kernels.diagnostics({e});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("grid 'n / 128' is 0"), std::string::npos) << problems[0].message;
}

} // namespace

namespace {

/// An experiment of picky<k> compiled by nvcc, k over `ks` ("[1, 2]").
void write_picky(const fs::path& file, const std::string& ks) {
  std::ofstream(file) << "name: picky\n"
                         "description: nvcc instances\n"
                         "source:\n"
                         "  file: picky.cu\n"
                         "  compiler: nvcc\n"
                         "  kernel: picky<k>\n"
                         "  grid: 1\n"
                         "  block: 32\n"
                         "  args:\n"
                         "    - {buffer: out, type: float, count: 32, output: true}\n"
                         "    - {scalar: n, type: int32, value: 32}\n"
                         "variants:\n"
                         "  - {name: a}\n"
                         "axes: {k: "
                      << ks << "}\n";
}

// nvcc compiles the whole file whichever instance it is asked for: kernels of one file that differ
// only in their name expression are one nvcc run, and each is cached under its own key.
TEST(source_sweep_kernels, nvcc_instances_of_one_file_are_compiled_by_one_nvcc_run) {
  sweep_dir dir;
  std::ofstream(dir.path / "picky.cu") << "template <int K> __global__ void picky(float* out, int n) {\n"
                                          "  static_assert(K != 3, \"three is refused\");\n"
                                          "  if (static_cast<int>(threadIdx.x) < n) out[threadIdx.x] = K;\n"
                                          "}\n";
  const fs::path file = dir.path / "picky.yaml";
  write_picky(file, "[1, 2, 4, 3]");
  const auto e = bb::config::load_experiment_file(file.string(), bb::registry::instance());
  bb::source::sweep_kernels kernels;
  kernels.add(e, 0, {"sm_90"});
  ASSERT_EQ(kernels.kernels().size(), 4u);
  kernels.compile(options(dir.cache("cache"), 2));
  // One run for all four; K = 3 fails it, so the first compiles alone there and the others after,
  // and only K = 3's own configuration fails.
  EXPECT_EQ(kernels.nvcc_runs(), 1u);
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& k = kernels.kernels()[i];
    if (k.request.kernel == "picky<3>") {
      EXPECT_FALSE(k.outcome.ok);
      EXPECT_NE(k.outcome.error.find("three is refused"), std::string::npos) << k.outcome.error;
      continue;
    }
    EXPECT_TRUE(k.outcome.ok) << k.request.kernel << ": " << k.outcome.error;
    EXPECT_FALSE(k.outcome.cache_hit) << k.request.kernel;
    const auto found = bb::source::find_cached(k.request, dir.cache("cache"));
    ASSERT_TRUE(found.has_value()) << k.request.kernel;
    const std::string n = k.request.kernel.substr(6, 1);
    EXPECT_EQ(found->lowered_name, "_Z5pickyILi" + n + "EEvPfi");
    EXPECT_NE(found->ptx.find(".entry _Z5pickyILi" + n + "EEvPfi"), std::string::npos);
  }

  // Instances added to the sweep: the first not in the cache leads the one run that makes them.
  write_picky(file, "[1, 2, 8, 9]");
  const auto more = bb::config::load_experiment_file(file.string(), bb::registry::instance());
  bb::source::sweep_kernels added;
  added.add(more, 0, {"sm_90"});
  const std::size_t before = cubins(dir.cache("cache"));
  added.compile(options(dir.cache("cache"), 2));
  EXPECT_EQ(added.nvcc_runs(), 1u);
  EXPECT_EQ(cubins(dir.cache("cache")), before + 2);
  for (const auto& k : added.kernels()) {
    EXPECT_TRUE(k.outcome.ok) << k.request.kernel << ": " << k.outcome.error;
    const bool old = k.request.kernel == "picky<1>" || k.request.kernel == "picky<2>";
    EXPECT_EQ(k.outcome.cache_hit, old) << k.request.kernel;
    if (k.request.kernel == "picky<8>") { // one nvcc run made 8 and 9: its PTX holds both
      const auto found = bb::source::find_cached(k.request, dir.cache("cache"));
      ASSERT_TRUE(found.has_value());
      EXPECT_NE(found->ptx.find(".entry _Z5pickyILi9EEvPfi"), std::string::npos);
    }
  }

  // Without the refused instance: one nvcc run makes all three, the first compiled, the others its
  // companions, each then found in the cache under its own key.
  bb::source::compile_request rq = kernels.kernels()[0].request;
  rq.kernel = "picky<5>";
  rq.companions = {"picky<6>", "picky<5>", "picky<7>"};
  const std::string cache = dir.cache("together");
  const auto k5 = bb::source::compile(rq, cache);
  EXPECT_EQ(k5.lowered_name, "_Z5pickyILi5EEvPfi");
  EXPECT_EQ(cubins(cache), 3u);
  for (const char* c : {"6", "7"}) {
    bb::source::compile_request other = kernels.kernels()[0].request;
    other.kernel = std::string("picky<") + c + ">";
    const auto hit = bb::source::find_cached(other, cache);
    ASSERT_TRUE(hit.has_value()) << c;
    EXPECT_EQ(hit->lowered_name, std::string("_Z5pickyILi") + c + "EEvPfi");
    EXPECT_EQ(hit->compiler, k5.compiler);
  }
}

} // namespace

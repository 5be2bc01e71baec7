// `bankbench validate` compiles source variants with NVRTC, without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "cli_runner.hpp"

using bb::test::run_cli;

namespace {

const std::string k_dir = std::string(BB_TEST_DATA) + "/source";

// A private cache, so the first validate compiles and the second finds every kernel cached.
struct private_cache {
  std::string dir =
      (std::filesystem::temp_directory_path() /
       (std::string("bb_cli_source_cache_") + ::testing::UnitTest::GetInstance()->current_test_info()->name()))
          .string();
  private_cache() {
    std::filesystem::remove_all(dir);
    setenv("BB_CACHE_DIR", dir.c_str(), 1);
  }
  ~private_cache() {
    unsetenv("BB_CACHE_DIR");
    std::filesystem::remove_all(dir);
  }
};

TEST(cli_source, validate_compiles_a_good_source_kernel_for_sm90) {
  private_cache cache;
  const auto r = run_cli("validate " + k_dir + "/validate/good.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // k in {2, 3}: scale<2> (twice, and k_times at k = 2: one instance) and scale<3>.
  EXPECT_NE(r.out.find(
                "good.yaml: ok (source_good, 8 configurations, 0 expectations, 2 kernel(s) compiled for sm_90 (0 from "
                "the cache"),
            std::string::npos)
      << r.out;
  const auto again = run_cli("validate --arch sm_90 " + k_dir + "/validate/good.yaml");
  EXPECT_NE(again.out.find("2 kernel(s) compiled for sm_90 (2 from the cache in "), std::string::npos) << again.out;
  EXPECT_NE(again.out.find(" ms, 0 compiled in 0 ms)"), std::string::npos) << again.out;
}

TEST(cli_source, validate_compiles_kernels_with_standard_headers_and_cub_unchanged) {
  private_cache cache;
  const auto r = run_cli("validate " + k_dir + "/validate/real_kernels.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("real_kernels.yaml: ok (real_kernels, 2 configurations, 0 expectations, 2 kernel(s) compiled"),
            std::string::npos)
      << r.out;
  // CUB's umbrella header holds host code: nvcc compiles that file, and says so once.
  EXPECT_NE(r.err.find("cub_block_sum.cu: compiled with nvcc: it has host code, which NVRTC cannot compile"),
            std::string::npos)
      << r.err;
}

TEST(cli_source, validate_refuses_a_broken_kernel_naming_the_cu_file_and_line) {
  private_cache cache;
  const auto r = run_cli("validate " + k_dir + "/validate/broken.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("broken.yaml:11: error: variants.only: variant 'only' (n=64): "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("broken.cu:5: error: identifier \"undeclared_value\" is undefined"), std::string::npos) << r.err;
}

TEST(cli_source, validate_checks_the_example_source_experiments) {
  private_cache cache;
  const auto r = run_cli("validate " + std::string(BB_SOURCE_DIR) + "/experiments/source");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("transpose.yaml: ok (source_transpose, 8 configurations, 3 expectations, 4 kernel(s) compiled"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("histogram.yaml: ok (source_histogram, 2 configurations, 2 expectations, 2 kernel(s) compiled"),
            std::string::npos)
      << r.out;
}

TEST(cli_source, validate_refuses_an_unknown_arch) {
  const auto r = run_cli("validate --arch hopper " + k_dir + "/validate/good.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("expected sm_XY"), std::string::npos) << r.err;
}

} // namespace

namespace {

TEST(cli_source, validate_evaluates_every_configuration_and_refuses_overflow) {
  private_cache cache;
  const auto r = run_cli("validate " + k_dir + "/validate/overflow.yaml");
  EXPECT_EQ(r.exit_code, 2);
  const std::string file = k_dir + "/validate/overflow.yaml";
  EXPECT_NE(r.err.find(file +
                       ":14: error: variants.elements: source_overflow/elements: buffer 'in' count 'n * n * n * 4' = "
                       "4611686018427387904 elements of 8 bytes overflow 64 bits"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(file +
                       ":19: error: variants.expression: source_overflow/expression: grid: in 'n * n * n * n': 64-bit "
                       "integer overflow at column 11"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(file +
                       ":20: error: variants.empty_grid: source_overflow/empty_grid: grid 'n / 2097152' is 0; each "
                       "dimension must be 1 .. 2^31-1"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("variants.fine"), std::string::npos) << r.err;
}

} // namespace

namespace {

// The README's newcomer path: its .cu file and YAML, copied out as a reader would, validate.
std::string readme_block(const std::string& readme, const std::string& opening) {
  const auto start = readme.find(opening);
  if (start == std::string::npos) return {};
  const auto body = readme.find('\n', start) + 1;
  const auto end = readme.find("   ```", body);
  std::string out;
  std::istringstream lines(readme.substr(body, end - body));
  for (std::string line; std::getline(lines, line);) out += (line.rfind("   ", 0) == 0 ? line.substr(3) : line) + "\n";
  return out;
}

TEST(cli_source, the_readme_example_kernel_and_yaml_validate) {
  private_cache cache;
  std::ifstream in(std::string(BB_SOURCE_DIR) + "/README.md");
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cu = readme_block(readme, "   ```cuda");
  const std::string yaml = readme_block(readme.substr(readme.find("`mine/tile.yaml`")), "   ```yaml");
  ASSERT_NE(cu.find("__global__ void swizzled"), std::string::npos) << cu;
  ASSERT_NE(yaml.find("file: tile.cu"), std::string::npos) << yaml;
  const auto dir = std::filesystem::path(cache.dir + "_mine");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tile.cu") << cu;
  std::ofstream(dir / "tile.yaml") << yaml;
  const auto r = run_cli("validate " + (dir / "tile.yaml").string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ok (my_tile, 2 configurations, 0 expectations, 1 kernel(s) compiled for sm_90"),
            std::string::npos)
      << r.out;
  std::filesystem::remove_all(dir);
}

} // namespace

namespace {

TEST(cli_source, validate_compiles_half_and_bfloat16_kernels) {
  private_cache cache;
  const auto r = run_cli("validate " + k_dir + "/validate/sixteen_bit.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // sum8<__half> twice (half, half_exact): one instance; cuda_fp16.h and cuda_bf16.h from the toolkit.
  EXPECT_NE(r.out.find("sixteen_bit.yaml: ok (source_sixteen_bit, 5 configurations, 0 expectations, 4 kernel(s) "
                       "compiled for sm_90 (0 from the cache"),
            std::string::npos)
      << r.out;
}

} // namespace

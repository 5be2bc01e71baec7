// NVRTC compilation of source variants, with no GPU: cubins, the cache, errors at the user's line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runner/config/experiment.hpp"
#include "runner/source/compile.hpp"
#include "runner/source/variants.hpp"
#include "source_test_util.hpp"
#include "../data/results/test_helpers.hpp"

namespace {

namespace fs = std::filesystem;
using bb::source::compile;
using bb::source::compile_request;
using bb::test::compile_error_of;
using bb::test::k_source_data;
using bb::test::results::temp_folder;

TEST(source_compile, template_kernel_to_sm90_cubin_with_tracked_header) {
  compile_request rq{k_source_data + "/good.cu", "scale<3>", {"OFFSET=1.0f"}, {}, "sm_90"};
  const auto k = compile(rq, "");
  EXPECT_FALSE(k.cache_hit);
  EXPECT_GT(k.compile_ms, 0);
  EXPECT_EQ(k.lowered_name, "_Z5scaleILi3EEvPKfPfi");
  ASSERT_GE(k.cubin.size(), 4u);
  EXPECT_EQ(k.cubin.substr(0, 4), std::string("\x7f"
                                              "ELF",
                                              4)); // a cubin is an ELF file
  ASSERT_EQ(k.headers.size(), 1u);
  EXPECT_EQ(fs::path(k.headers[0]).filename(), "good_scale.cuh");
  EXPECT_EQ(k.key.size(), 64u);
}

TEST(source_compile, cache_hit_and_key_changes) {
  temp_folder dir;
  fs::copy_file(k_source_data + "/good.cu", dir.path() / "good.cu");
  fs::copy_file(k_source_data + "/good_scale.cuh", dir.path() / "good_scale.cuh");
  const std::string cache = (dir.path() / "cache").string();
  compile_request rq{(dir.path() / "good.cu").string(), "scale<2>", {}, {}, "sm_90"};
  const auto cold = compile(rq, cache);
  const auto warm = compile(rq, cache);
  EXPECT_FALSE(cold.cache_hit);
  EXPECT_TRUE(warm.cache_hit);
  EXPECT_EQ(warm.compile_ms, 0);
  EXPECT_EQ(warm.key, cold.key);
  EXPECT_EQ(warm.cubin, cold.cubin);
  EXPECT_EQ(warm.lowered_name, cold.lowered_name);
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(cache)) entries += e.path().extension() == ".cubin" ? 1 : 0;
  EXPECT_EQ(entries, 1u); // no temporary file left behind

  // Every input of the key: options, architecture, name expression, and the included header.
  compile_request other = rq;
  other.defines = {"OFFSET=2.0f"};
  EXPECT_NE(compile(other, cache).key, cold.key);
  other = rq;
  other.arch = "sm_80";
  EXPECT_NE(compile(other, cache).key, cold.key);
  other = rq;
  other.kernel = "scale<4>";
  EXPECT_NE(compile(other, cache).key, cold.key);
  std::ofstream(dir.path() / "good_scale.cuh", std::ios::app) << "// edited\n";
  const auto edited = compile(rq, cache);
  EXPECT_NE(edited.key, cold.key);
  EXPECT_FALSE(edited.cache_hit);
  EXPECT_NE(edited.source_hash, cold.source_hash);
}

TEST(source_compile, a_torn_cache_entry_is_compiled_again) {
  temp_folder dir;
  const std::string cache = (dir.path() / "cache").string();
  compile_request rq{k_source_data + "/good.cu", "scale<5>", {}, {}, "sm_90"};
  const auto cold = compile(rq, cache);
  std::ofstream(fs::path(cache) / (cold.key + ".cubin"), std::ios::trunc) << "bankbench-nv";
  const auto again = compile(rq, cache);
  EXPECT_FALSE(again.cache_hit);
  EXPECT_EQ(again.cubin, cold.cubin);
}

TEST(source_compile, compile_error_names_the_file_and_line) {
  const std::string path = k_source_data + "/broken.cu";
  const std::string e = compile_error_of({path, "broken", {}, {}, "sm_90"});
  EXPECT_NE(e.find(path + ":5: error: identifier \"undeclared_value\" is undefined"), std::string::npos) << e;
  EXPECT_EQ(
      e.rfind(path + ": kernel 'broken' does not compile for sm_90 with nvrtc " + bb::source::nvrtc_version() + ":", 0),
      0u)
      << e;
}

TEST(source_compile, missing_source) {
  EXPECT_EQ(
      compile_error_of({k_source_data + "/absent.cu", "k", {}, {}, "sm_90"}),
      k_source_data +
          "/absent.cu: cannot read the kernel source: no such file (the path is relative to the experiment file)");
}

TEST(source_compile, unknown_kernel_name) {
  const std::string e = compile_error_of({k_source_data + "/good.cu", "scael<3>", {}, {}, "sm_90"});
  EXPECT_NE(e.find("kernel 'scael<3>' does not compile for sm_90 with nvrtc " + bb::source::nvrtc_version() +
                   ": there is no __global__ function 'scael' in the file "
                   "(did you mean 'scale'?)"),
            std::string::npos)
      << e;
  const std::string path = std::string(BB_SOURCE_DIR) + "/experiments/source/transpose.cu";
  const std::string far = compile_error_of({path, "histogram", {}, {}, "sm_90"});
  EXPECT_NE(far.find(
                "there is no __global__ function 'histogram' in the file (its __global__ functions are 'transpose' "
                "'transpose_direct')"),
            std::string::npos)
      << far;
}

TEST(source_compile, template_arguments_that_do_not_instantiate) {
  const std::string e = compile_error_of({k_source_data + "/good.cu", "scale<float>", {}, {}, "sm_90"});
  EXPECT_NE(e.find("kernel 'scale<float>' does not compile for sm_90 with nvrtc " + bb::source::nvrtc_version() +
                   ": the template arguments of 'scale<float>' do not "
                   "instantiate 'scale'"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("error"), std::string::npos) << e;
}

TEST(source_compile, the_example_transpose_compiles_for_each_layout) {
  const std::string path = std::string(BB_SOURCE_DIR) + "/experiments/source/transpose.cu";
  for (const char* layout : {"naive", "padded", "swizzled"}) {
    const auto k = compile({path, std::string("transpose<") + layout + ", 32, 8>", {}, {}, "sm_90"}, "");
    EXPECT_NE(k.lowered_name.find(layout), std::string::npos) << k.lowered_name;
  }
  const auto h = compile(
      {std::string(BB_SOURCE_DIR) + "/experiments/source/histogram.cu", "histogram", {"COPIES=4"}, {}, "sm_90"}, "");
  EXPECT_EQ(h.lowered_name, "histogram");
}

} // namespace

namespace {

TEST(source_compile, fingerprint_covers_the_sources_and_their_headers) {
  const std::string dir = (fs::temp_directory_path() / "bb_fingerprint").string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(k_source_data + "/good.cu", dir + "/good.cu");
  fs::copy_file(k_source_data + "/good_scale.cuh", dir + "/good_scale.cuh");
  bb::config::experiment e;
  bb::config::source_variant v;
  v.name = "twice";
  v.file = dir + "/good.cu";
  v.kernel = "scale<2>";
  e.sources.push_back(v);
  const std::string first = bb::source::source_fingerprint(e);
  EXPECT_EQ(first.size(), 64u);
  EXPECT_EQ(bb::source::source_fingerprint(e), first); // the same files: the same fingerprint
  std::ofstream(dir + "/good_scale.cuh", std::ios::app) << "// a header edit\n";
  const std::string edited = bb::source::source_fingerprint(e);
  EXPECT_NE(edited, first);
  e.sources[0].kernel = "scale<3>";
  EXPECT_NE(bb::source::source_fingerprint(e), edited);
  EXPECT_EQ(bb::source::source_fingerprint(bb::config::experiment{}), ""); // built-in families: none
  fs::remove_all(dir);
}

} // namespace
